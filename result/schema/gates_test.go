package schema

import (
	"strings"
	"testing"
)

// TestCheckCells: each cell is checked on the medians of its valid
// samples against the plan's threshold and its path's; a cell without a
// valid sample breaches, with a note; a path without thresholds of its
// own still gets the plan's.
func TestCheckCells(t *testing.T) {
	r := &Result{Plan: Plan{
		Paths:       []PlanPath{{Name: "a", Threshold: "p99<=5ms"}, {Name: "b"}},
		Keys:        []int{16},
		Connections: []int{4, 8},
		Repeats:     3,
		Threshold:   "tps>=100,failures<=1%",
	}}
	sample := func(path string, conns int, reqS float64, p99 int64, failures int64) Sample {
		return Sample{Path: path, Keys: 16, Connections: conns, ReqS: reqS, Requests: 1000, Failures: failures, Latency: Latency{P99Us: p99}}
	}
	r.Samples = []Sample{
		// a, 4 connections: p99 medians 4 ms (met), tps 150.
		sample("a", 4, 100, 3000, 0), sample("a", 4, 150, 4000, 0), sample("a", 4, 200, 9000, 0),
		// a, 8 connections: p99 median 6 ms, failures 2% (both breached).
		sample("a", 8, 500, 6000, 20), sample("a", 8, 500, 7000, 20), sample("a", 8, 500, 1000, 20),
		// b, 4 connections: 90 req/s (breached); b, 8: no valid sample.
		sample("b", 4, 90, 100, 0),
		{Path: "b", Keys: 16, Connections: 8, Error: "failed"},
	}
	gs, err := r.CheckCells()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gs {
		var vs []string
		for _, v := range g.Verdicts {
			s := v.Threshold + "=" + v.Display
			if !v.Met {
				s += "!"
			}
			if v.Note != "" {
				s += "(" + v.Note + ")"
			}
			vs = append(vs, s)
		}
		got = append(got, g.Name()+": "+strings.Join(vs, " "))
		if g.Breached != strings.Contains(got[len(got)-1], "!") {
			t.Errorf("%s: breached %v", got[len(got)-1], g.Breached)
		}
	}
	want := []string{
		"a 16 keys 4 connections: tps>=100=150.000 tps failures<=1%=0.000% p99<=5ms=4.000 ms",
		"a 16 keys 8 connections: tps>=100=500.000 tps failures<=1%=1.961%! p99<=5ms=6.000 ms!",
		"b 16 keys 4 connections: tps>=100=90.000 tps! failures<=1%=0.000%",
		"b 16 keys 8 connections: tps>=100=—!(nothing was measured) failures<=1%=—!(nothing was measured)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := len(BreachedCells(gs)); n != 3 {
		t.Errorf("%d breached cells, want 3", n)
	}
	for in, msg := range map[string]string{
		"p95<=1ms":   "keeps p50, p90, p99, p99.9 and max",
		"a:p99<=1ms": "no per-script figures",
		"p99<":       "invalid threshold",
		"stddev<1ms": "a matrix sample keeps no stddev",
		"lag<1ms":    "a matrix sample keeps no lag",
	} {
		if _, err := ParseCellThresholds(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: %v, want %q", in, err, msg)
		}
	}
}
