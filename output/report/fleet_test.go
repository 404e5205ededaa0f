package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// workerResult is worker k of a 3-worker run, with intervals at the given
// boundaries.
func workerResult(t *testing.T, k int, boundaries ...int) *Result {
	t.Helper()
	r, err := NewResult(fakeSummary(t, uint64(k+1)), Versions{Gbench: "0.1.0"}, fakeIntervals(t, len(boundaries), uint64(k+5)))
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range boundaries {
		r.Intervals[i].Index = b
	}
	start := time.Unix(1_800_000_000, 0).UTC()
	r.Start = start
	r.Worker = &Worker{RunID: "run", Index: k, Count: 3, RunClients: 12, RunThreads: 6, RunRate: 1500,
		Start: WorkerStart{Method: "postgres", Planned: start, LateS: 0.001 * float64(k), LateBoundS: 0.1}}
	return roundTrip(t, r)
}

// TestMergeWorkers: the merge of a run's workers describes the whole run
// (its rate, its tps over the benchmarking time), and its intervals keep
// the boundaries every worker reported: worker 2's report at 3 covered 2
// as well, so the others' intervals 2 and 3 are combined with it, and
// every transaction is in exactly one merged interval.
func TestMergeWorkers(t *testing.T) {
	in := []*Result{workerResult(t, 0, 1, 2, 3, 4), workerResult(t, 1, 1, 2, 3), workerResult(t, 2, 1, 3, 4)}
	m, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Fleet; f == nil || f.Workers != 3 || len(f.Merged) != 3 || len(f.Missing) != 0 || f.RunID != "run" {
		t.Errorf("fleet %+v", m.Fleet)
	}
	if m.Config.Rate != 1500 || m.TPS != rate(m.Counters.Processed, m.Durations.BenchS) {
		t.Errorf("rate %v, tps %v", m.Config.Rate, m.TPS)
	}
	var idx []int
	var runs []int
	for _, iv := range m.Intervals {
		idx, runs = append(idx, iv.Index), append(runs, iv.Runs)
	}
	if len(idx) != 3 || idx[0] != 1 || idx[1] != 3 || idx[2] != 4 || runs[0] != 3 || runs[1] != 3 || runs[2] != 2 {
		t.Fatalf("merged boundaries %v covering %v workers, want [1 3 4] covering [3 3 2]", idx, runs)
	}
	var want, got int64
	for _, r := range in {
		for _, iv := range r.Intervals {
			want += iv.Counters.Processed
		}
	}
	for _, iv := range m.Intervals {
		got += iv.Counters.Processed
	}
	if got != want {
		t.Errorf("merged intervals hold %d transactions, the workers' %d", got, want)
	}
	var buf bytes.Buffer
	if err := MergeSummary(&buf, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"number of clients: 12\n", "workers merged: 3 of 3 (0, 1, 2)\n",
		"workers started from 0.000 to 2.000 ms after it\n", "progress: 3.0 s, ", " (2 of 3 workers)\n"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestMergeWorkersMissingAndLate: a missing worker and a late one are
// named in the fleet and the warnings; merging the merge with the missing
// worker completes the run.
func TestMergeWorkersMissingAndLate(t *testing.T) {
	w0, w1, w2 := workerResult(t, 0, 1), workerResult(t, 1, 1), workerResult(t, 2, 1)
	w2.Worker.Start.Late = true
	part, err := Merge([]*Result{w0, w2})
	if err != nil {
		t.Fatal(err)
	}
	f := part.Fleet
	if len(f.Missing) != 1 || f.Missing[0] != 1 || len(f.Late) != 1 || f.Late[0] != 2 || len(part.Warnings) != 2 ||
		!strings.HasPrefix(part.Warnings[0], "workers 1 of 3 are missing") {
		t.Errorf("fleet %+v, warnings %q", f, part.Warnings)
	}
	whole, err := Merge([]*Result{roundTrip(t, part), w1})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Fleet.Missing) != 0 || whole.Runs != 3 || whole.Config.Rate != 1500 {
		t.Errorf("merge of the merge: fleet %+v, runs %d", whole.Fleet, whole.Runs)
	}
}

func TestMergeWorkersRefuses(t *testing.T) {
	base := workerResult(t, 0, 1)
	for _, c := range []struct {
		name string
		edit func(*Result)
		want string
	}{
		{"same worker", func(r *Result) { r.Worker.Index = 0 }, "worker 0 is also in input 1 (the same part twice)"},
		{"another run", func(r *Result) { r.Worker.RunID = "other" }, `it is a worker of run "other", not of run "run"`},
		{"more workers", func(r *Result) { r.Worker.Count = 4 }, "its run has 4 workers, not 3"},
		{"other clients", func(r *Result) { r.Worker.RunClients = 13 }, "its run has -c 13 -j 6 --rate 1500, not -c 12 -j 6 --rate 1500"},
		{"another start", func(r *Result) { r.Worker.Start.Planned = r.Worker.Start.Planned.Add(time.Second) }, "it started at 2027-01-15T08:00:01Z, not at 2027-01-15T08:00:00Z with the others"},
		{"other options", func(r *Result) { r.Config.MaxTries = 7 }, "its config.max_tries differs from the others'"},
		{"not a worker", func(r *Result) { r.Worker = nil }, "it is not a worker's result (gbench --worker), the others are"},
	} {
		other := workerResult(t, 1, 1)
		c.edit(other)
		_, err := Merge([]*Result{base, other})
		var me *MergeError
		if !errors.As(err, &me) || me.Input != 1 || !strings.Contains(err.Error(), ": "+c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
