package report

import (
	"bytes"
	"testing"
	"time"
)

// TestSummaryOfPrintsTheRunsText: the summary rebuilt from a run's JSON
// prints exactly what the run printed, for the kinds of runs whose text
// differs: several scripts with -r under --rate and -L, one script,
// transactions mode without rate (latency from the benchmarking time),
// -C, a partitioned database.
func TestSummaryOfPrintsTheRunsText(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Summary)
	}{
		{"two scripts, -r, --rate, -L, retries", func(*Summary) {}},
		{"one script", nil},
		{"transactions, no rate", func(s *Summary) {
			s.Config.Duration, s.Config.Transactions, s.Config.Rate, s.Config.LatencyLimit = 0, 1250, 0, 0
			s.Config.MaxTries, s.FailuresDetailed = 1, false
		}},
		{"-C", func(s *Summary) { s.Config.Connect = true; s.Config.PerCommand = false }},
		{"partitioned, no percentiles", func(s *Summary) {
			s.PartitionMethod, s.Partitions, s.Percentiles = "hash", 4, nil
		}},
		{"a worker's share", func(s *Summary) { s.Result.Clients = 3 }},
	} {
		var s *Summary
		if c.edit == nil {
			s = fakeSummary(t, 3, "\\set a random(1, 10)\nSELECT :a\n  + 1;\n")
		} else {
			s = fakeSummary(t, 3)
			c.edit(s)
		}
		if !s.Config.PerCommand {
			s.Result.Stats.Commands = nil
		}
		r, err := NewResult(s, Versions{Gbench: "0.1.0"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		back, err := SummaryOf(roundTrip(t, r))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var want, got bytes.Buffer
		if err := Text(&want, s); err != nil {
			t.Fatal(err)
		}
		if err := Text(&got, back); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: rebuilt summary\n%s\nthe run's\n%s", c.name, got.String(), want.String())
		}
		if back.Result.Bench != s.Result.Bench || back.Result.ConnElapsed != s.Result.ConnElapsed || back.Result.Bench < time.Second {
			t.Errorf("%s: durations %v %v, want %v %v", c.name, back.Result.Bench, back.Result.ConnElapsed, s.Result.Bench, s.Result.ConnElapsed)
		}
	}
}
