package report

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// progressTxn is one -P interval's figures: n transactions of 1 ms plus
// 0.5 ms steps, lag 0.25 ms, and the given skips, failures and retries.
func progressTxn(n, skipped, failed int, tries int) *stats.Txn {
	t := stats.NewTxn()
	for i := range n {
		t.Record(stats.OK, 1000+500*float64(i), 250, tries)
	}
	for range skipped {
		t.Record(stats.Skipped, 0, 0, 1)
	}
	for range failed {
		t.Record(stats.SerializationFailure, 0, 0, tries)
	}
	return t
}

// TestProgressGolden pins the -P line: pgbench 15's fields first, in
// pgbench's order and format, then gbench's percentiles.
func TestProgressGolden(t *testing.T) {
	prog := textProgram(t, script.Simple, textScript{"builtin:select-only", 1})
	wall := time.Unix(1_700_000_000, 123_456_000)
	pct := []float64{50, 99, 100}
	cases := []struct {
		cfg engine.Config
		p   engine.Progress
		ts  bool
		pct []float64
	}{
		// Plain: tps, latency, stddev, failed.
		{engine.Config{MaxTries: 1}, engine.Progress{Elapsed: 5 * time.Second, Interval: 5 * time.Second, Txn: progressTxn(10, 0, 0, 1)}, false, nil},
		// An interval without transactions: zeros, no percentiles.
		{engine.Config{MaxTries: 1}, engine.Progress{Elapsed: 6 * time.Second, Interval: time.Second, Txn: progressTxn(0, 0, 0, 1)}, false, pct},
		// --rate: lag.
		{engine.Config{MaxTries: 1, Rate: 50}, engine.Progress{Elapsed: time.Second, Interval: time.Second, Txn: progressTxn(4, 0, 1, 1)}, false, nil},
		// --rate and --latency-limit: lag and skipped.
		{engine.Config{MaxTries: 1, Rate: 50, LatencyLimit: 5 * time.Millisecond}, engine.Progress{Elapsed: 2 * time.Second, Interval: time.Second, Txn: progressTxn(3, 2, 0, 1)}, false, nil},
		// --max-tries: retried and retries after the lag fields.
		{engine.Config{MaxTries: 3, Rate: 50, LatencyLimit: 5 * time.Millisecond}, engine.Progress{Elapsed: 3 * time.Second, Interval: time.Second, Txn: progressTxn(3, 1, 1, 2)}, false, nil},
		// Unlimited tries (-T): the retry fields too.
		{engine.Config{MaxTries: 0}, engine.Progress{Elapsed: 4 * time.Second, Interval: time.Second, Txn: progressTxn(2, 0, 0, 3)}, false, nil},
		// --progress-timestamp: Unix time with milliseconds.
		{engine.Config{MaxTries: 1}, engine.Progress{Elapsed: time.Second, Interval: time.Second, Wall: wall, Txn: progressTxn(2, 0, 0, 1)}, true, nil},
		// gbench's percentiles come after everything pgbench prints.
		{engine.Config{MaxTries: 3, Rate: 50, LatencyLimit: 5 * time.Millisecond}, engine.Progress{Elapsed: time.Second, Interval: time.Second, Txn: progressTxn(5, 1, 0, 1)}, false, pct},
	}
	var b bytes.Buffer
	for _, c := range cases {
		cfg := c.cfg
		cfg.Program = prog
		if err := ProgressLine(&b, RunConfigOf(&cfg), c.p, c.ts, c.pct); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "progress.golden", b.Bytes())

	// Every line reads as pgbench 15's once gbench's fields are removed.
	pgLine := regexp.MustCompile(`^progress: [0-9]+\.[0-9]{1,3} s, [0-9]+\.[0-9] tps, lat [0-9]+\.[0-9]{3} ms stddev [0-9]+\.[0-9]{3}, [0-9]+ failed` +
		`(, lag [0-9]+\.[0-9]{3} ms(, [0-9]+ skipped)?)?(, [0-9]+ retried, [0-9]+ retries)?$`)
	extra := regexp.MustCompile(`(, (p[0-9.]+|max) [0-9]+\.[0-9]{3} ms)+$`)
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !pgLine.MatchString(extra.ReplaceAllString(l, "")) {
			t.Errorf("not pgbench's form: %q", l)
		}
	}
}

// TestProgressReturnsWriteErrors: a -P line that cannot be written says so.
func TestProgressReturnsWriteErrors(t *testing.T) {
	cfg := &engine.Config{Program: textProgram(t, script.Simple, textScript{"builtin:select-only", 1}), MaxTries: 1}
	p := engine.Progress{Elapsed: time.Second, Interval: time.Second, Txn: progressTxn(1, 0, 0, 1)}
	if err := ProgressLine(failingWriter{}, RunConfigOf(cfg), p, false, nil); err == nil {
		t.Fatal("ProgressLine returned no error for a failing writer")
	}
}

// ExampleProgressLine shows a -P line under --rate and --latency-limit,
// with gbench's percentiles after pgbench's fields.
func ExampleProgressLine() {
	prog, _ := script.Compile(nil, script.Simple, nil)
	cfg := &engine.Config{Program: prog, MaxTries: 1, Rate: 100, LatencyLimit: 10 * time.Millisecond}
	txn := stats.NewTxn()
	for _, us := range []float64{1500, 2500, 12000} {
		txn.Record(stats.OK, us, 100, 1)
	}
	txn.Record(stats.Skipped, 0, 0, 1)
	p := engine.Progress{Elapsed: 3 * time.Second, Interval: time.Second, Txn: txn}
	_ = ProgressLine(os.Stdout, RunConfigOf(cfg), p, false, []float64{50, 100})
	// Output:
	// progress: 3.0 s, 3.0 tps, lat 5.333 ms stddev 4.732, 0 failed, lag 0.100 ms, 1 skipped, p50 2.501 ms, max 12.007 ms
}
