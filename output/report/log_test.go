package report

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
)

// The -update flag rewrites golden files. Other test files of the package
// may define it as well, and a flag can be defined only once.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func updating() bool { return flag.Lookup("update").Value.String() == "true" }

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// at is a wall-clock time t0 + us microseconds.
func at(us int64) time.Time {
	return time.Unix(1_700_000_000, 0).Add(time.Duration(us) * time.Microsecond)
}

// txEntries are transactions of every kind, in the order a thread could
// log them.
var txEntries = []engine.LogEntry{
	{Client: 0, Count: 0, Script: 0, Status: stats.OK, Latency: 1234, Lag: 0, Tries: 1, Wall: at(5)},
	{Client: 1, Count: 0, Script: 1, Status: stats.OK, Latency: 987654, Lag: 321, Tries: 3, Wall: at(999_999)},
	{Client: 0, Count: 1, Script: 0, Status: stats.Skipped, Tries: 1, Wall: at(1_000_000)},
	{Client: 0, Count: 2, Script: 0, Status: stats.SerializationFailure, Tries: 2, Wall: at(1_500_042)},
	{Client: 12, Count: 99, Script: 2, Status: stats.DeadlockFailure, Tries: 10, Wall: at(2_000_001)},
	{Client: 3, Count: 7, Script: 0, Status: stats.OtherFailure, Tries: 1, Wall: at(3_250_000)},
	{Client: 3, Count: 8, Script: 0, Status: stats.OK, Latency: 0, Lag: 7, Tries: 1, Wall: at(3_250_001)},
}

// logOptionSets are the combinations of columns pgbench's options produce.
var logOptionSets = []struct {
	name string
	opt  LogOptions
}{
	{"plain", LogOptions{}},                                               // no --rate, --max-tries 1
	{"rate", LogOptions{Lag: true}},                                       // --rate
	{"retries", LogOptions{Retries: true}},                                // --max-tries 3
	{"detailed", LogOptions{FailuresDetailed: true}},                      // --failures-detailed
	{"all", LogOptions{Lag: true, Retries: true, FailuresDetailed: true}}, // all of them
	{"resp", LogOptions{FailuresDetailed: true, OtherFailures: true}},     // \resp programs
}

func TestTxLogGolden(t *testing.T) {
	var out bytes.Buffer
	for _, set := range logOptionSets {
		out.WriteString("# " + set.name + "\n")
		l := NewTxLog(&out, set.opt)
		for _, e := range txEntries {
			if err := l.Transaction(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(at(4_000_000)); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "txlog.golden", out.Bytes())
}

func TestAggregateGolden(t *testing.T) {
	var out bytes.Buffer
	for _, set := range logOptionSets {
		for _, iv := range []time.Duration{time.Second, 2 * time.Second} {
			out.WriteString("# " + set.name + " interval " + iv.String() + "\n")
			// Opened half a second into the first second: intervals start
			// at that whole second.
			l := NewAggregateLog(&out, iv, at(-500_000), set.opt)
			for _, e := range txEntries {
				if err := l.Transaction(e); err != nil {
					t.Fatal(err)
				}
			}
			// Closed in the middle of an interval after an empty one.
			if err := l.Close(at(5_100_000)); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden(t, "aggregate.golden", out.Bytes())
}

func TestAggregateIntervals(t *testing.T) {
	tests := []struct {
		name    string
		start   int64   // open time, us from t0
		entries []int64 // transaction times
		close   int64
		want    []string // interval_start and num_transactions of each line
	}{
		// Nothing happened: the partial interval is still written.
		{"empty run", 200_000, nil, 700_000, []string{"1700000000 0"}},
		// Closed exactly at a boundary: no empty interval of zero length.
		{"close at boundary", 0, []int64{10}, 1_000_000, []string{"1700000000 1"}},
		// A quiet stretch prints empty intervals.
		{"gap", 0, []int64{10, 3_000_000}, 3_100_000, []string{"1700000000 1", "1700000001 0", "1700000002 0", "1700000003 1"}},
		// The transaction after close time's interval is in the last line.
		{"partial last", 900_000, []int64{950_000, 1_200_000}, 1_300_000, []string{"1700000000 1", "1700000001 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := NewAggregateLog(&out, time.Second, at(tt.start), LogOptions{})
			for _, us := range tt.entries {
				if err := l.Transaction(engine.LogEntry{Status: stats.OK, Latency: 5, Tries: 1, Wall: at(us)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Close(at(tt.close)); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
				f := strings.Fields(line)
				if len(f) != 15 {
					t.Fatalf("line %q has %d fields, want 15", line, len(f))
				}
				got = append(got, f[0]+" "+f[1])
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLogsAllocateNothing(t *testing.T) {
	e := txEntries[1]
	var sink discardCount
	logs := map[string]engine.TxLog{
		"tx":        NewTxLog(&sink, LogOptions{Lag: true, Retries: true}),
		"aggregate": NewAggregateLog(&sink, time.Second, e.Wall, LogOptions{Lag: true}),
	}
	for name, l := range logs {
		allocs := testing.AllocsPerRun(1000, func() {
			e.Wall = e.Wall.Add(time.Millisecond) // crosses intervals too
			if err := l.Transaction(e); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per transaction, want 0", name, allocs)
		}
	}
}

// discardCount swallows writes.
type discardCount struct{ n int }

func (d *discardCount) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// failWriter fails every write.
type failWriter struct{}

var errDiskFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestLogWriteErrors(t *testing.T) {
	for name, l := range map[string]engine.TxLog{
		"tx":        NewTxLog(failWriter{}, LogOptions{}),
		"aggregate": NewAggregateLog(failWriter{}, time.Second, at(0), LogOptions{}),
	} {
		// Buffered: the first lines fit, the error comes at the latest on
		// Close, and then sticks.
		var err error
		for i := 0; i < 10 && err == nil; i++ {
			err = l.Transaction(txEntries[0])
		}
		if cerr := l.Close(at(10_000_000)); cerr == nil {
			err = nil
		} else if err == nil {
			err = cerr
		}
		if !errors.Is(err, errDiskFull) {
			t.Errorf("%s: error %v, want %v", name, err, errDiskFull)
		}
	}
	// Enough lines to overflow the buffer: Transaction reports it.
	l := NewTxLog(failWriter{}, LogOptions{})
	var err error
	for i := 0; i < logBufferSize && err == nil; i++ {
		err = l.Transaction(txEntries[0])
	}
	if !errors.Is(err, errDiskFull) {
		t.Errorf("Transaction error %v, want %v", err, errDiskFull)
	}
	if err := l.Transaction(txEntries[0]); !errors.Is(err, errDiskFull) {
		t.Errorf("error after failure %v, want it again", err)
	}
}

func TestLogFiles(t *testing.T) {
	dir := t.TempDir()
	f := &LogFiles{Prefix: filepath.Join(dir, "run"), PID: 4242}
	for thread, want := range []string{"run.4242", "run.4242.1", "run.4242.2"} {
		l, err := f.Open(thread)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Transaction(txEntries[0]); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(at(0)); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, want))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(data); got != "0 1 1234 0 1700000000 5\n" {
			t.Errorf("%s holds %q", want, got)
		}
	}
	if got := (&LogFiles{PID: 7}).Name(0); got != "pgbench_log.7" {
		t.Errorf("default name %q, want pgbench_log.7", got)
	}
	bad := &LogFiles{Prefix: filepath.Join(dir, "missing", "x"), PID: 1}
	_, err := bad.Open(0)
	want := `could not open logfile "` + filepath.Join(dir, "missing", "x") + `.1": no such file or directory`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestLogFilesAggregate(t *testing.T) {
	dir := t.TempDir()
	f := &LogFiles{Prefix: filepath.Join(dir, "agg"), PID: 1, Aggregate: time.Second, Now: func() time.Time { return at(100) }}
	l, err := f.Open(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Transaction(txEntries[0]); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(at(200_000)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "agg.1"))
	if got, want := string(data), "1700000000 1 1234 1522756 1234 1234 0 0 0 0 0 0 0 0 0\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func BenchmarkTxLog(b *testing.B) {
	l := NewTxLog(&discardCount{}, LogOptions{Lag: true, Retries: true})
	e := txEntries[1]
	b.ReportAllocs()
	for b.Loop() {
		if err := l.Transaction(e); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAggregateLog(b *testing.B) {
	e := txEntries[1]
	l := NewAggregateLog(&discardCount{}, time.Second, e.Wall, LogOptions{Lag: true})
	b.ReportAllocs()
	for b.Loop() {
		e.Wall = e.Wall.Add(time.Microsecond)
		if err := l.Transaction(e); err != nil {
			b.Fatal(err)
		}
	}
}
