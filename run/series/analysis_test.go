package series

import (
	"context"
	"math"
	"strings"
	"testing"
)

// point makes a closed-loop point with the given median and range.
func point(clients int, med, lo, hi float64) Point {
	return Point{Load: Load{Clients: clients}, Runs: 3, TPS: Stat{med, lo, hi}}
}

func TestFindKnee(t *testing.T) {
	for _, c := range []struct {
		name    string
		points  []Point
		knee    int
		note    string
		decline int
	}{
		{"rises then flattens", []Point{point(1, 100, 99, 101), point(2, 199, 198, 200), point(4, 200, 199, 201), point(8, 198, 197, 199)}, 2, "", 0},
		{"first point within 5% counts", []Point{point(1, 100, 99, 101), point(4, 370, 369, 371), point(16, 396, 395, 397), point(64, 400, 399, 401)}, 16, "", 0},
		{"still rising", []Point{point(1, 100, 99, 101), point(2, 190, 189, 191), point(4, 350, 349, 351)}, 0, "still rising at 4 clients", 0},
		{"collapse past the knee", []Point{point(1, 100, 99, 101), point(4, 400, 399, 401), point(16, 300, 299, 301)}, 4, "", 16},
		{"noisy plateau widens the tolerance", []Point{point(1, 100, 99, 101), point(4, 330, 320, 340), point(16, 400, 340, 420)}, 4, "", 0},
		{"one point", []Point{point(1, 100, 99, 101)}, 0, "fewer than two", 0},
		{"nothing completed", []Point{point(1, 0, 0, 0), point(2, 0, 0, 0)}, 0, "no run completed", 0},
		{"unsorted input", []Point{point(8, 198, 197, 199), point(1, 100, 99, 101), point(4, 200, 199, 201), point(2, 120, 119, 121)}, 4, "", 0},
	} {
		k, note := FindKnee(c.points, DefaultPlateau)
		switch {
		case c.knee == 0 && (k != nil || !strings.Contains(note, c.note)):
			t.Errorf("%s: knee %+v note %q, want none with %q", c.name, k, note, c.note)
		case c.knee != 0 && (k == nil || k.Clients != c.knee || k.DeclineClients != c.decline):
			t.Errorf("%s: knee %+v (%s), want %d clients, decline at %d", c.name, k, note, c.knee, c.decline)
		case k != nil && (math.Abs(k.WorkLowTPS-0.6*k.TPS) > 1e-9 || math.Abs(k.WorkHighTPS-0.7*k.TPS) > 1e-9):
			t.Errorf("%s: working point %v–%v for knee %v", c.name, k.WorkLowTPS, k.WorkHighTPS, k.TPS)
		}
	}
}

func TestParseObjective(t *testing.T) {
	for _, c := range []struct {
		in, err string
		p, us   float64
		strict  bool
		fail    float64 // -1: none
	}{
		{in: "p99<=5ms", p: 99, us: 5000, fail: -1},
		{in: "p99.9 < 250us", p: 99.9, us: 250, strict: true, fail: -1},
		{in: "p50<=1.5s,failures<=1%", p: 50, us: 1.5e6, fail: 0.01},
		{in: "p100<=20ms, failures<=0%", p: 100, us: 20000, fail: 0},
		{in: "p99>=5ms", err: `expected a percentile bound like "p99<=5ms"`},
		{in: "p0<=5ms", err: "above 0 and at most 100"},
		{in: "p101<=5ms", err: "above 0 and at most 100"},
		{in: "p99<=0ms", err: "must be a finite number above zero"},
		{in: "p99<=1" + strings.Repeat("0", 400) + "s", err: "must be a finite number above zero"},
		{in: "p99<=5", err: "units us, ms or s"},
		{in: "p99<=5ms,errors<=1%", err: `failure ceiling like "failures<=1%"`},
		{in: "p99<=5ms,failures<=101%", err: "at most 100"},
		{in: "p99<=5ms,failures<=1%,x", err: "at most one failure term"},
	} {
		o, err := ParseObjective(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		fail := -1.0
		if o.MaxFailures != nil {
			fail = *o.MaxFailures
		}
		if err != nil || o.Percentile != c.p || o.BoundUs != c.us || o.Strict != c.strict || fail != c.fail {
			t.Errorf("%q: %+v (failures %v), %v", c.in, o, fail, err)
		}
	}
	o, _ := ParseObjective("p99<5ms,failures<1%")
	if o.Meets(5000, 0) || !o.Meets(4999, 0.0099) || o.Meets(100, 0.01) {
		t.Error("strict bounds are not exclusive")
	}
}

// queue is a fake system: p99 is 2 ms up to knee tps, then grows steeply;
// wobble (alternating) adds noise to each reading.
type queue struct {
	knee, capacity float64
	wobble         float64
	runs           []Run
	n              int
}

func (q *queue) measure(_ context.Context, rate float64, stage string) Run {
	q.n++
	r := Run{Order: len(q.runs), Load: Load{Clients: 4, Rate: rate}, Processed: 1000}
	if rate == 0 {
		r.TPS = q.capacity
	} else {
		p99 := 2000.0
		if rate > q.knee {
			p99 += (rate - q.knee) * 1000
		}
		if q.n%2 == 0 {
			p99 *= 1 + q.wobble
		}
		r.TPS = rate
		r.Latency.P99Us = int64(p99)
	}
	q.runs = append(q.runs, r)
	return r
}

func TestSearch(t *testing.T) {
	obj, _ := ParseObjective("p99<=5ms")
	for _, c := range []struct {
		name           string
		q              queue
		high           float64
		outcome        string
		lo, hi         float64 // the answer's bounds
		failingAbove   bool
		probesAtLeast  int
		wantCapacityTP float64
	}{
		{name: "ceiling inside the range", q: queue{knee: 300, capacity: 1000}, outcome: OutcomeFound, lo: 300 * 0.95, hi: 303, failingAbove: true, wantCapacityTP: 1000},
		{name: "met everywhere below capacity", q: queue{knee: 2000, capacity: 1000}, outcome: OutcomeEverywhere, lo: 1000, hi: 1000, wantCapacityTP: 1000},
		{name: "met everywhere below --max-rate", q: queue{knee: 2000, capacity: 1000}, high: 500, outcome: OutcomeEverywhere, lo: 500, hi: 500},
		{name: "met nowhere", q: queue{knee: 0, capacity: 1000}, outcome: OutcomeNowhere, lo: 0, hi: 0, wantCapacityTP: 1000},
		// A noisy reading above the ceiling can pass once; the repeats
		// catch it and the search resumes lower.
		{name: "noise is caught by the repeats", q: queue{knee: 300, capacity: 1000, wobble: -0.9}, outcome: OutcomeFound, lo: 250, hi: 303, failingAbove: true, wantCapacityTP: 1000},
	} {
		q := c.q
		s := &Searcher{Objective: obj, Clients: 4, High: c.high, Resolution: DefaultResolution, Repeats: 3, MaxRuns: 40, Measure: q.measure}
		res := s.Search(context.Background())
		if res.Outcome != c.outcome || res.RateTPS < c.lo || res.RateTPS > c.hi {
			t.Errorf("%s: %s at %v tps (%s), want %s in [%v, %v]", c.name, res.Outcome, res.RateTPS, res.Note, c.outcome, c.lo, c.hi)
		}
		if res.CapacityTPS != c.wantCapacityTP {
			t.Errorf("%s: capacity %v, want %v", c.name, res.CapacityTPS, c.wantCapacityTP)
		}
		if c.failingAbove && !(res.FailingTPS > res.RateTPS) {
			t.Errorf("%s: failing rate %v not above the answer %v", c.name, res.FailingTPS, res.RateTPS)
		}
		if len(res.Probes) != len(q.runs) {
			t.Errorf("%s: %d probes for %d runs: every run is evidence", c.name, len(res.Probes), len(q.runs))
		}
		confirms := 0
		for _, p := range res.Probes {
			if p.Stage == "confirm" && p.RateTPS == res.RateTPS {
				confirms++
			}
		}
		if res.Outcome != OutcomeNowhere && confirms < 3 {
			t.Errorf("%s: the answer %v has %d confirming runs, want 3", c.name, res.RateTPS, confirms)
		}
	}
}

func TestSearchStopsOnFailedRunAndBudget(t *testing.T) {
	obj, _ := ParseObjective("p99<=5ms")
	failing := func(_ context.Context, rate float64, _ string) Run {
		return Run{Load: Load{Rate: rate}, Error: "2 clients aborted"}
	}
	res := (&Searcher{Objective: obj, High: 100, Resolution: 0.05, Repeats: 3, MaxRuns: 30, Measure: failing}).Search(context.Background())
	if res.Outcome != OutcomeInterrupted || !strings.Contains(res.Note, "a run failed") {
		t.Errorf("failed run: %+v", res)
	}
	q := queue{knee: 300, capacity: 1000}
	res = (&Searcher{Objective: obj, Resolution: 0.001, Repeats: 3, MaxRuns: 6, Measure: q.measure}).Search(context.Background())
	if res.Outcome != OutcomeInterrupted || !strings.Contains(res.Note, "used its 6 runs") || len(q.runs) != 6 {
		t.Errorf("budget: %+v, %d runs", res, len(q.runs))
	}
}

// abRuns makes valid runs of variant v with the given tps values.
func abRuns(v string, tps ...float64) []Run {
	var out []Run
	for _, x := range tps {
		out = append(out, Run{Load: Load{Clients: 4, Variant: v}, TPS: x, Processed: 1, Latency: Latency{P99Us: int64(1e6 / x)}})
	}
	return out
}

func TestABVerdict(t *testing.T) {
	a, b := Side{Load: Load{Clients: 4, Variant: "A"}}, Side{Load: Load{Clients: 4, Variant: "B"}}
	for _, c := range []struct {
		name, metric string
		runs         []Run
		verdict      string
		noisy        bool
		reason       string
	}{
		{"B clearly faster", "tps", append(abRuns("A", 100, 101, 99), abRuns("B", 120, 121, 119)...), VerdictB, false, "probability 10.0%"},
		{"A/A overlaps", "tps", append(abRuns("A", 100, 101, 99), abRuns("B", 100.5, 99.5, 100.2)...), VerdictNone, false, "overlap"},
		{"apart but within the noise", "tps", append(abRuns("A", 100, 102, 98), abRuns("B", 102.5, 103, 104)...), VerdictNone, false, "within the noise"},
		{"noisy environment flagged", "tps", append(abRuns("A", 100, 130, 90), abRuns("B", 200, 210, 190)...), VerdictB, true, "NOISY"},
		{"latency: lower is better", "p99", append(abRuns("A", 100, 101, 99), abRuns("B", 120, 121, 119)...), VerdictB, false, ""},
		{"too few runs", "tps", append(abRuns("A", 100, 101), abRuns("B", 120, 121, 119)...), VerdictTooFew, false, "at least 3"},
	} {
		r, err := NewAB(c.runs, a, b, c.metric, DefaultNoise)
		if err != nil || r.Verdict != c.verdict || r.Noisy != c.noisy || !strings.Contains(r.Reason, c.reason) {
			t.Errorf("%s: %+v, %v", c.name, r, err)
		}
	}
	if _, err := NewAB(nil, a, b, "p99x", DefaultNoise); err == nil {
		t.Error("a bad metric was accepted")
	}
}

func TestABVerdictIsSymmetric(t *testing.T) {
	a, b := Side{Load: Load{Clients: 4, Variant: "A"}}, Side{Load: Load{Clients: 4, Variant: "B"}}
	// B is 50 times slower, and both sides are very noisy: the ranges are
	// far apart and the difference (4900%) dwarfs the noise (about 150%).
	r, err := NewAB(append(abRuns("A", 234, 1236, 2034), abRuns("B", 1.8, 22.7, 30.7)...), a, b, "tps", DefaultNoise)
	if err != nil || r.Verdict != VerdictA || !r.Noisy {
		t.Errorf("%+v, %v", r, err)
	}
}
