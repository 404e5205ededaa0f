package fleet_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/fleet"
)

// servers returns, for each test server, what a subtest calls from its
// own goroutine to get that server's meeting places: it skips the subtest
// when the server is not reachable, or fails it under
// GBENCH_REQUIRE_SERVICES=1 (testsrv.NeedPostgres, NeedRedis), so that
// each server's rendezvous is a test of its own.
func servers() map[string]func(t *testing.T) func() fleet.Server {
	return map[string]func(t *testing.T) func() fleet.Server{
		"postgres": func(t *testing.T) func() fleet.Server {
			pg, err := pgsql.ParseConfig(testsrv.NeedPostgres(t))
			if err != nil {
				t.Fatal(err)
			}
			return func() fleet.Server { return pg.Rendezvous() }
		},
		"resp": func(t *testing.T) func() fleet.Server {
			ro, err := resp.ParseURL(testsrv.NeedRedis(t))
			if err != nil {
				t.Fatal(err)
			}
			return func() fleet.Server { return resp.NewRendezvous(ro) }
		},
		// a cluster's rendezvous goes to the master of its hash's slot:
		// any other node answers MOVED
		"resp cluster": func(t *testing.T) func() fleet.Server {
			c := testsrv.StartCluster(t)
			ro, err := resp.ParseURL("redis+cluster://" + strings.Join(c.Addrs(), ","))
			if err != nil {
				t.Fatal(err)
			}
			return func() fleet.Server { return resp.NewRendezvous(ro) }
		},
	}
}

// TestMeetThroughServers: three workers meet through each real server and
// get the same start, on the server's clock, a whole second at least the
// margin after the last arrival; a fourth with an index already there is
// refused; once they close, nothing of the meeting is left and the same
// run id can meet again.
func TestMeetThroughServers(t *testing.T) {
	for name, server := range servers() {
		t.Run(name, func(t *testing.T) {
			open := server(t)
			runID := "test " + t.Name() + " " + time.Now().String()
			meet := func() []fleet.Plan {
				plans := make([]fleet.Plan, 3)
				conns := make([]fleet.Server, 3)
				var wg sync.WaitGroup
				for k := range plans {
					wg.Add(1)
					go func() {
						defer wg.Done()
						conns[k] = open()
						p, err := fleet.Meet(context.Background(), conns[k], fleet.Meeting{RunID: runID, Index: k, Count: 3, Timeout: time.Minute})
						if err != nil {
							t.Error(err)
						}
						plans[k] = p
					}()
				}
				wg.Wait()
				dup := open()
				_, err := fleet.Meet(context.Background(), dup, fleet.Meeting{RunID: runID, Index: 1, Count: 3, Timeout: time.Second})
				if err == nil || !strings.Contains(err.Error(), "has arrived already") {
					t.Errorf("a second worker 1: %v", err)
				}
				dup.Close()
				for _, c := range conns {
					if err := c.Close(); err != nil {
						t.Error(err)
					}
				}
				return plans
			}
			plans := meet()
			var last time.Time
			for _, p := range plans {
				if p.Arrived.After(last) {
					last = p.Arrived
				}
			}
			for k, p := range plans {
				if !p.Start.Equal(plans[0].Start) {
					t.Errorf("worker %d starts at %v, worker 0 at %v", k, p.Start, plans[0].Start)
				}
				if p.Start.Sub(last) < fleet.Margin || p.Start.Nanosecond() != 0 {
					t.Errorf("worker %d: start %v, last arrival %v", k, p.Start, last)
				}
			}
			probe := open()
			ctx := context.Background()
			if fresh, err := probe.Arrive(ctx, fleet.Key(runID), 0); !fresh || err != nil {
				t.Errorf("arriving after the meeting: fresh %v, %v", fresh, err)
			}
			if arr, _, err := probe.Arrivals(ctx, fleet.Key(runID)); err != nil || len(arr) != 1 {
				t.Errorf("arrivals after the meeting: %v, %v (want only the new one)", arr, err)
			}
			probe.Close()
			meet() // the same run id meets again
		})
	}
}
