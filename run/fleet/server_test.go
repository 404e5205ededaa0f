package fleet_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/fleet"
)

// servers returns the test servers' meeting places, skipping those that
// are not reachable (unless GBENCH_REQUIRE_SERVICES=1).
func servers(t *testing.T) map[string]func() fleet.Server {
	t.Helper()
	out := map[string]func() fleet.Server{}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conninfo := os.Getenv("GBENCH_TEST_PG")
	if conninfo == "" {
		conninfo = "host=127.0.0.1 port=5432 user=postgres dbname=test"
	}
	pg, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := pg.Open(ctx); err == nil {
		c.Close()
		out["postgres"] = func() fleet.Server { return pg.Rendezvous() }
	} else {
		unreachable(t, "PostgreSQL", err)
	}
	url := os.Getenv("GBENCH_TEST_REDIS")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	ro, err := resp.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := resp.Dial(ctx, ro); err == nil {
		c.Close()
		out["resp"] = func() fleet.Server { return resp.NewRendezvous(ro) }
	} else {
		unreachable(t, "Redis", err)
	}
	return out
}

func unreachable(t *testing.T, what string, err error) {
	t.Helper()
	// The other server's rendezvous is still tested: log, unless every
	// server is required.
	if testsrv.Required() {
		t.Fatalf("%s is required (GBENCH_REQUIRE_SERVICES=1): %v", what, err)
	}
	t.Logf("%s not reachable, not tested: %v", what, err)
}

// TestMeetThroughServers: three workers meet through each real server and
// get the same start, on the server's clock, a whole second at least the
// margin after the last arrival; a fourth with an index already there is
// refused; once they close, nothing of the meeting is left and the same
// run id can meet again.
func TestMeetThroughServers(t *testing.T) {
	for name, open := range servers(t) {
		t.Run(name, func(t *testing.T) {
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
