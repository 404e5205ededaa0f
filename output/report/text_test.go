package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// updateGoldens is the package's -update flag: another test file of the
// package may already define it, and a flag can be defined only once.
var updateGoldens = lookupOrDefineBool("update", "rewrite the golden files in testdata")

func lookupOrDefineBool(name, usage string) func() bool {
	if flag.Lookup(name) == nil {
		flag.Bool(name, false, usage)
	}
	return func() bool { return flag.Lookup(name).Value.String() == "true" }
}

// checkGolden compares got with testdata/<path>, or rewrites the file
// under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	path = filepath.Join("testdata", path)
	if updateGoldens() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", path, got, want)
	}
}

// textScript names a builtin ("builtin:select-only") or gives a script's
// text, with its weight.
type textScript struct {
	src    string
	weight int
}

// textProgram compiles scripts for a summary.
func textProgram(t *testing.T, mode script.Mode, scripts ...textScript) *script.Program {
	t.Helper()
	var parsed []*script.Script
	for i, ts := range scripts {
		name, text := "script"+string(rune('1'+i))+".sql", ts.src
		if b, ok := strings.CutPrefix(ts.src, "builtin:"); ok {
			bi, err := script.FindBuiltin(b)
			if err != nil {
				t.Fatal(err)
			}
			name, text = bi.Desc, bi.Text
		}
		s, err := script.Parse(name, text, ts.weight)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, s)
	}
	p, err := script.Compile(parsed, mode, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// textRun builds a run's statistics by hand, so that the summary is the
// same on every machine.
type textRun struct {
	t     *testing.T
	cfg   *engine.Config
	block *stats.Block
}

func newTextRun(t *testing.T, cfg *engine.Config) *textRun {
	var counts []int
	for _, s := range cfg.Program.Scripts {
		counts = append(counts, len(s.Commands))
	}
	return &textRun{t: t, cfg: cfg, block: stats.NewBlock(counts, cfg.PerCommand)}
}

// add records n transactions of script sc ending with status st, with
// latencies from lat microseconds in steps of 250, lag 40 us and the given
// tries. Each command of the script gets an even share of the latency and,
// for failures, the failure and retries on its last command.
func (r *textRun) add(sc, n int, st stats.Status, lat float64, tries int) *textRun {
	for i := range n {
		l := lat + float64(250*i)
		if st != stats.OK {
			l = 0
		}
		r.block.Total.Record(st, l, 40, tries)
		r.block.Scripts[sc].Record(st, l, 40, tries)
		if st == stats.OK && r.cfg.LatencyLimit > 0 && time.Duration(l)*time.Microsecond > r.cfg.LatencyLimit {
			r.block.Total.Late++
			r.block.Scripts[sc].Late++
		}
		if r.block.Commands == nil || st == stats.Skipped {
			continue
		}
		cmds := r.block.Commands[sc]
		for j := range cmds {
			share := l / float64(len(cmds))
			cmds[j].Latency.Add(share)
			cmds[j].Hist.Record(int64(share))
		}
		if st != stats.OK {
			cmds[len(cmds)-1].Failures++
		}
		cmds[len(cmds)-1].Retries += int64(tries - 1)
	}
	return r
}

// summary wraps the statistics in a Summary of a 10 s benchmark.
func (r *textRun) summary(threads int) *Summary {
	res := &engine.Result{
		Stats: r.block, Threads: threads, Start: time.Unix(1_700_000_000, 0),
		Bench: 10 * time.Second, ConnElapsed: 12345 * time.Microsecond,
	}
	r.block.ConnTime = 2_500_000
	return &Summary{Config: RunConfigOf(r.cfg), Result: RunResultOf(res), Scale: 2, Percentiles: []float64{50, 90, 99, 99.9, 100}}
}

// TestTextGolden pins the text summary, line for line, for the shapes of
// run pgbench 15 reports differently. The expected files were checked
// against pgbench 15's output for the same kind of run.
func TestTextGolden(t *testing.T) {
	single := func() *script.Program { return textProgram(t, script.Simple, textScript{"builtin:tpcb-like", 1}) }
	multi := func() *script.Program {
		return textProgram(t, script.Prepared,
			textScript{"builtin:select-only", 3},
			textScript{"builtin:simple-update", 1},
			textScript{"-- never chosen\nselect 1;\n", 0})
	}
	cases := []struct {
		name string
		make func() *Summary
	}{
		// -c 4 -j 2 -t 10: the average latency comes from the run time.
		{"single", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 4, Threads: 2, Transactions: 10, MaxTries: 1}
			return newTextRun(t, cfg).add(0, 40, stats.OK, 1000, 1).summary(2)
		}},
		// -T 10 -P 5 on a partitioned pgbench_accounts: average and stddev.
		{"duration_partitions", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 2, Threads: 1, Duration: 10 * time.Second, Progress: 5 * time.Second, MaxTries: 1}
			s := newTextRun(t, cfg).add(0, 50, stats.OK, 2000, 1).summary(1)
			s.PartitionMethod, s.Partitions = "hash", 4
			return s
		}},
		// Three scripts, one weighing 0: per-script sections, NaN% for the
		// script that never ran, failures by kind.
		{"multi", func() *Summary {
			cfg := &engine.Config{Program: multi(), Clients: 2, Threads: 1, Transactions: 20, MaxTries: 1}
			r := newTextRun(t, cfg).add(0, 30, stats.OK, 500, 1).add(1, 8, stats.OK, 3000, 1)
			r.add(1, 2, stats.DeadlockFailure, 0, 1)
			s := r.summary(1)
			s.FailuresDetailed = true
			return s
		}},
		// -r on one script: per-command lines, then gbench's percentiles.
		{"per_command", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 1, Threads: 1, Transactions: 10, MaxTries: 1, PerCommand: true}
			return newTextRun(t, cfg).add(0, 10, stats.OK, 1100, 1).summary(1)
		}},
		// -r with several scripts and --max-tries 3: retries everywhere.
		{"multi_per_command_retries", func() *Summary {
			cfg := &engine.Config{Program: multi(), Clients: 2, Threads: 2, Transactions: 20, MaxTries: 3, PerCommand: true}
			r := newTextRun(t, cfg).add(0, 25, stats.OK, 500, 1).add(1, 10, stats.OK, 3000, 2)
			r.add(1, 3, stats.SerializationFailure, 0, 3).add(0, 2, stats.OK, 700, 3)
			s := r.summary(2)
			s.FailuresDetailed = true
			return s
		}},
		// -R 100 -L 5 -T 10: skipped and late transactions, schedule lag.
		{"rate_limit", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 2, Threads: 2, Duration: 10 * time.Second,
				Rate: 100, LatencyLimit: 5 * time.Millisecond, MaxTries: 1}
			return newTextRun(t, cfg).add(0, 20, stats.OK, 3000, 1).add(0, 5, stats.Skipped, 0, 1).summary(2)
		}},
		// -R 100 -L 1 with two scripts where every transaction was skipped:
		// pgbench goes on, with NaN for the lag and the scripts' shares.
		{"all_skipped", func() *Summary {
			cfg := &engine.Config{Program: multi(), Clients: 1, Threads: 1, Transactions: 8,
				Rate: 100, LatencyLimit: time.Millisecond, MaxTries: 1}
			return newTextRun(t, cfg).add(0, 6, stats.Skipped, 0, 1).add(1, 2, stats.Skipped, 0, 1).summary(1)
		}},
		// -C: connection time per transaction, tps including it.
		{"connect", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 2, Threads: 1, Transactions: 5, MaxTries: 1, Connect: true}
			return newTextRun(t, cfg).add(0, 10, stats.OK, 1500, 1).summary(1)
		}},
		// Every client aborted before finishing a transaction: pgbench 15
		// prints "0 (NaN%)" failed and stops.
		{"aborted_all", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 2, Threads: 1, Transactions: 3, MaxTries: 1}
			return newTextRun(t, cfg).summary(1)
		}},
		// The same with --max-tries 3 --failures-detailed: the failure and
		// retry lines still come, with NaN%, before pgbench stops.
		{"aborted_all_retries", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 1, Threads: 1, Transactions: 3, MaxTries: 3}
			s := newTextRun(t, cfg).summary(1)
			s.FailuresDetailed = true
			return s
		}},
		// Every transaction failed (--max-tries 2, serialization failures):
		// pgbench stops after the retry lines.
		{"all_failed", func() *Summary {
			cfg := &engine.Config{Program: single(), Clients: 1, Threads: 1, Transactions: 3, MaxTries: 2, PerCommand: true}
			s := newTextRun(t, cfg).add(0, 3, stats.SerializationFailure, 0, 2).summary(1)
			s.FailuresDetailed = true
			return s
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, c.make()); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("text", c.name+".golden"), b.Bytes())
			// pgbench 18's layout of the same run (--pgbench-output=18).
			s18 := c.make()
			s18.Layout = 18
			b.Reset()
			if err := Text(&b, s18); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("text18", c.name+".golden"), b.Bytes())
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestTextReturnsWriteErrors: a summary that cannot be written says so.
func TestTextReturnsWriteErrors(t *testing.T) {
	cfg := &engine.Config{Program: textProgram(t, script.Simple, textScript{"builtin:select-only", 1}),
		Clients: 1, Threads: 1, Transactions: 1, MaxTries: 1}
	s := newTextRun(t, cfg).add(0, 1, stats.OK, 100, 1).summary(1)
	if err := Text(failingWriter{}, s); err == nil {
		t.Fatal("Text returned no error for a failing writer")
	}
}
