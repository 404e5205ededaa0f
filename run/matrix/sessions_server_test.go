package matrix

import (
	"context"
	"math"
	"testing"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/workloads"
)

// TestSessionsPlanHitRate runs the bundled sessions plan (the article's
// get, set and mixed on UNLOGGED and logged tables and Redis) briefly on
// throwaway PostgreSQL and Redis servers, and checks the hit rate each
// sample obtained: gets ask for uuid(n) with n uniform in 1..1.25 S and
// the servers hold uuid(1..S), so each get hits with probability exactly
// 0.8 (sets add only keys of n above 10^12, which no get asks for).
func TestSessionsPlanHitRate(t *testing.T) {
	sb := startSandbox(t, sandbox.Options{Postgres: true, Redis: true})
	text, err := workloads.PlanText("sessions")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlan("sessions.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	// Requests, not a duration, so that a get sample makes a known number
	// of draws whatever the machine's speed.
	const requests, sessions = 2000, 2000
	seed, warmup := uint64(25), 0.0
	p.Requests, p.DurationS, p.Repeats, p.Connections, p.Threads = requests, 0, 1, []int{4}, 1
	p.WarmupS, p.Seed, p.Dataset.Sessions = &warmup, &seed, sessions
	c, err := p.Config(PlanOptions{Name: "sessions", File: "sessions.toml", Data: text})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := pgsql.ParseConfig(sb.PostgresConnString())
	if err != nil {
		t.Fatal(err)
	}
	ro, err := resp.ParseURL(sb.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	c.PG, c.RESP, c.Load, c.Sandbox = pg, &ro, true, true
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if res.FailedSamples != 0 || len(res.Samples) != 9 || res.Plan.Sessions != sessions {
		t.Fatalf("%d samples, %d failed, %d sessions", len(res.Samples), res.FailedSamples, res.Plan.Sessions)
	}
	for _, s := range res.Samples {
		r := s.Reads
		if s.Mix == "set" {
			if r != nil {
				t.Errorf("%s set: a set counted reads: %+v", s.Path, r)
			}
			continue
		}
		if r == nil {
			t.Errorf("%s %s: no reads recorded", s.Path, s.Mix)
			continue
		}
		gets := r.Hits + r.Misses
		// Every get is counted: all requests of a get sample, about 80%
		// of a mixed one's (each request picks its script by weight).
		if s.Mix == "get" && gets != s.Requests || gets > s.Requests || gets < s.Requests/2 {
			t.Errorf("%s %s: %d reads counted for %d requests", s.Path, s.Mix, gets, s.Requests)
		}
		// Binomial(gets, 0.8): the ratio's standard deviation is
		// sqrt(0.8 * 0.2 / gets), about 0.01 here; 5 of them are a
		// failure once in 3 million runs of a correct program, while a
		// wrong key space (all hits, or the 64% of 0.8 * 0.8) is far out.
		tol := 5 * math.Sqrt(0.8*0.2/float64(gets))
		if math.Abs(r.HitRatio-0.8) > tol {
			t.Errorf("%s %s: hit rate %.4f (%d of %d), want 0.8 ± %.3f", s.Path, s.Mix, r.HitRatio, r.Hits, gets, tol)
		}
		t.Logf("%s %s: hit rate %.4f (%d of %d reads)", s.Path, s.Mix, r.HitRatio, r.Hits, gets)
		// Redis's own counters agree with the client's.
		if s.Path == "resp" && s.Server != nil {
			if h, m := s.Server.Counters["keyspace_hits"], s.Server.Counters["keyspace_misses"]; h != r.Hits || m != r.Misses {
				t.Errorf("resp %s: the client counted %d hits, %d misses; Redis %d, %d", s.Mix, r.Hits, r.Misses, h, m)
			}
		}
	}
}
