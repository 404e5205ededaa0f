package report

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/stats"
)

// roundTrip is r written and read back, as merge sees files.
func roundTrip(t *testing.T, r *Result) *Result {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// TestMergeExact merges two runs' JSON and checks it against the runs'
// own statistics merged in memory, as the engine merges threads.
func TestMergeExact(t *testing.T) {
	sa, sb := fakeSummary(t, 1), fakeSummary(t, 2)
	a, err := NewResult(sa, Versions{Gbench: "0.1.0", Server: "15.20"}, fakeIntervals(t, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewResult(sb, Versions{Gbench: "0.1.0", Server: "15.21"}, fakeIntervals(t, 4, 2))
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := roundTrip(t, a), roundTrip(t, b)
	aCopy := roundTrip(t, a)
	m, err := Merge([]*Result{ra, rb})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ra, aCopy) {
		t.Error("Merge modified its first input")
	}

	want := sa.Result.Stats
	want.Merge(sb.Result.Stats)
	checkDist(t, "total", &m.Latency, want.Total.Latency, want.Total.Hist)
	if m.Unstarted != 3+6 {
		t.Errorf("unstarted %d, want the runs' 3+6", m.Unstarted)
	}
	if c := m.Counters; c != newCounters(want.Total) {
		t.Errorf("counters %+v, want %+v", c, newCounters(want.Total))
	}
	for i := range want.Scripts {
		checkDist(t, "script", &m.Scripts[i].Latency, want.Scripts[i].Latency, want.Scripts[i].Hist)
		for j := range want.Commands[i] {
			cw := &want.Commands[i][j]
			cs := m.Scripts[i].Commands[j].Stats
			checkDist(t, "command", &cs.Latency, cw.Latency, cw.Hist)
			if cs.Failures != cw.Failures || !reflect.DeepEqual(cs.FailureClasses, cw.Classes) {
				t.Errorf("command %d/%d: %+v, want %+v", i, j, cs, cw)
			}
		}
	}
	if m.Runs != 2 || len(m.Parts) != 2 || m.Config.Clients != 8 || m.Config.Rate != 1000 {
		t.Errorf("runs %d, parts %d, clients %d, rate %v", m.Runs, len(m.Parts), m.Config.Clients, m.Config.Rate)
	}
	if m.Versions.Server != "15.20, 15.21" || m.Versions.Gbench != "0.1.0" {
		t.Errorf("versions %+v", m.Versions)
	}
	if !m.Start.Equal(a.Start) || m.Durations.BenchS < b.Durations.BenchS {
		t.Errorf("start %v, bench %v", m.Start, m.Durations.BenchS)
	}
	if math.Abs(m.TPS-(a.TPS+b.TPS)) > 1e-9 {
		t.Errorf("tps %v, want %v", m.TPS, a.TPS+b.TPS)
	}

	// Intervals pair by position; the longer series goes on.
	if len(m.Intervals) != 4 {
		t.Fatalf("%d intervals, want 4", len(m.Intervals))
	}
	h0, _ := a.Intervals[0].Latency.Hist()
	h1, _ := b.Intervals[0].Latency.Hist()
	h0.Merge(h1)
	got, _ := m.Intervals[0].Latency.Hist()
	if !got.Raw().Equals(h0.Raw()) || m.Intervals[0].Counters.Processed != a.Intervals[0].Counters.Processed+b.Intervals[0].Counters.Processed {
		t.Error("interval 0 is not the merge of both runs' interval 0")
	}
	if !reflect.DeepEqual(m.Intervals[3].Latency, b.Intervals[3].Latency) {
		t.Error("interval 3, only in the second run, changed")
	}
}

// checkDist compares a merged distribution with the expected statistics
// and histogram.
func checkDist(t *testing.T, what string, got *Latency, want stats.Simple, h *stats.Hist) {
	t.Helper()
	gh, err := got.Hist()
	if err != nil {
		t.Fatal(err)
	}
	if !gh.Raw().Equals(h.Raw()) {
		t.Errorf("%s: merged histogram differs", what)
	}
	if got.Count != want.Count || got.MinUs != want.Min || got.MaxUs != want.Max ||
		math.Abs(got.MeanUs-want.Mean()) > 1e-9*want.Mean() || math.Abs(got.StddevUs-want.Stddev()) > 1e-6*want.Stddev() {
		t.Errorf("%s: %+v, want %+v", what, got.Simple, want)
	}
	for i, p := range got.Percentiles {
		if p.Us != h.Quantile(testPercentiles[i]) {
			t.Errorf("%s: p%v = %d, want %d", what, p.P, p.Us, h.Quantile(testPercentiles[i]))
		}
	}
}

// TestMergeAssociative: merging a merge gives what merging all at once
// gives.
func TestMergeAssociative(t *testing.T) {
	var rs []*Result
	for seed := range uint64(3) {
		r, err := NewResult(fakeSummary(t, seed), Versions{Gbench: "0.1.0"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, roundTrip(t, r))
	}
	all, err := Merge(rs)
	if err != nil {
		t.Fatal(err)
	}
	ab, err := Merge(rs[:2])
	if err != nil {
		t.Fatal(err)
	}
	abc, err := Merge([]*Result{roundTrip(t, ab), rs[2]})
	if err != nil {
		t.Fatal(err)
	}
	if all.Latency.HDR != abc.Latency.HDR || all.Counters != abc.Counters || abc.Runs != 3 || len(abc.Parts) != 3 {
		t.Errorf("merge of a merge differs: %+v / %+v", all.Counters, abc.Counters)
	}
}

func TestMergeIncompatible(t *testing.T) {
	base := fakeSummary(t, 1)
	a, _ := NewResult(base, Versions{}, nil)
	tests := []struct {
		name string
		b    func() *Result
		want string
	}{
		// One script instead of two.
		{"script count", func() *Result {
			r, _ := NewResult(fakeSummary(t, 1, "SELECT 1;\n"), Versions{}, nil)
			return r
		}, "different scripts: 1 against 2"},
		// Same names, another command.
		{"command text", func() *Result {
			r, _ := NewResult(fakeSummary(t, 1, "\\set a random(1, 10)\nSELECT :a;\n", "BEGIN;\nSELECT 3;\nEND;\n"), Versions{}, nil)
			return r
		}, `different scripts: command 2 of script 2 (s2.sql) is "SELECT 3;", not "SELECT 2;"`},
		// Another weight.
		{"weight", func() *Result {
			r, _ := NewResult(base, Versions{}, nil)
			r.Scripts[0].Weight = 5
			return r
		}, "different scripts: script 1 (s1.sql) has weight 5, not 1"},
		// Without -r.
		{"per-command", func() *Result {
			r, _ := NewResult(base, Versions{}, nil)
			for i := range r.Scripts {
				for j := range r.Scripts[i].Commands {
					r.Scripts[i].Commands[j].Stats = nil
				}
			}
			return r
		}, "per-command statistics (-r) are in one result and not in the other"},
	}
	for _, tt := range tests {
		_, err := Merge([]*Result{a, tt.b()})
		var me *MergeError
		if !errors.As(err, &me) || me.Input != 1 || err.Error() != "input 2 cannot be merged with input 1: "+tt.want {
			t.Errorf("%s: error %v", tt.name, err)
		}
	}
	if _, err := Merge(nil); err == nil {
		t.Error("merging nothing succeeded")
	}
}

func TestMergeText(t *testing.T) {
	a, _ := NewResult(fakeSummary(t, 1), Versions{}, nil)
	b, _ := NewResult(fakeSummary(t, 2), Versions{}, nil)
	m, err := Merge([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := MergeText(&buf, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"merged runs: 2\n", "number of clients: 8\n", "number of transactions actually processed: ", "latency percentiles (ms): p50 = "} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}
