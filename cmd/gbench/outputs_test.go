package main

// Tests of a run's outputs against real PostgreSQL and pgbench 15: -l and
// --aggregate-interval logs side by side with pgbench's, and the truth of
// --json, --hdr-log and "gbench merge" against the -l log of the same run.
// They use the server and pgbench helpers of compat_test.go.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/output/report"
)

// outScripts are the scripts the output tests run, by file name.
var outScripts = map[string]string{
	"select.sql": "SELECT 1;\n",
	// Latencies spread over a few milliseconds, for percentiles.
	"spread.sql": "\\set d random(0, 3000)\n\\sleep :d us\nSELECT :d;\n",
	// Slower than the -R schedule allows under -L: transactions get skipped.
	"slow.sql": "\\sleep 5 ms\n",
	// Concurrent read-then-write in repeatable read: serialization failures.
	"conflict.sql": "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT v FROM counter WHERE id = 1;\n\\sleep 1 ms\nUPDATE counter SET v = v + 1 WHERE id = 1;\nEND;\n",
}

// outFixture is a scratch database and a directory holding the scripts.
type outFixture struct {
	db  string // conninfo of the scratch database
	dir string
}

func newOutFixture(t *testing.T) *outFixture {
	t.Helper()
	cfg := needServer(t)
	db := scratchDB(t, cfg, "outputs")
	admin(t, dbConfig(t, db), "create table counter (id int primary key, v int); insert into counter values (1, 0)")
	dir := t.TempDir()
	for name, text := range outScripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &outFixture{db: db, dir: dir}
}

// path is a file in the fixture's directory.
func (f *outFixture) path(name string) string { return filepath.Join(f.dir, name) }

// gbench runs gbench in-process on the scratch database; it fails the test
// unless the exit status is want.
func (f *outFixture) gbench(t *testing.T, want int, args ...string) outcome {
	t.Helper()
	o := runGbench(append(append([]string{"-n"}, args...), f.db)...)
	if o.code != want {
		t.Fatalf("gbench %q: exit status %d, want %d\n%s%s", args, o.code, want, o.stdout, o.stderr)
	}
	return o
}

// logFiles reads the log files of a prefix, by name with the process id
// replaced by PID, and checks that it is the only process id.
func logFiles(t *testing.T, prefix string) map[string][]string {
	t.Helper()
	names, err := filepath.Glob(prefix + ".*")
	if err != nil || len(names) == 0 {
		t.Fatalf("no log files %s.*: %v", prefix, err)
	}
	out := map[string][]string{}
	pid := ""
	for _, name := range names {
		rest := strings.Split(strings.TrimPrefix(name, prefix+"."), ".")
		if pid == "" {
			pid = rest[0]
		}
		if rest[0] != pid {
			t.Fatalf("log files of two processes: %q", names)
		}
		rest[0] = "PID"
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(prefix)+"."+strings.Join(rest, ".")] = lines(string(data))
	}
	return out
}

// Per-field patterns of pgbench 15's per-transaction log lines.
var (
	fClient  = `\d+`
	fTxNo    = `[1-9]\d*`
	fTime    = `(?:\d+|skipped|failed|serialization|deadlock)`
	fScript  = `\d+`
	fEpoch   = `1\d{9}`
	fMicros  = `\d{1,6}`
	fLag     = `\d+`
	fRetries = `\d+`
)

// lineRegexp joins field patterns into a whole-line pattern.
func lineRegexp(fields ...string) *regexp.Regexp {
	return regexp.MustCompile(`^` + strings.Join(fields, " ") + `$`)
}

// aggregateLine is pgbench 15's aggregate line: 15 integer fields.
var aggregateLine = lineRegexp(fEpoch, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`, `\d+`)

// TestLogsLikePgbench runs pgbench 15 and gbench with the same logging
// options and compares their log files: names, the form of every line
// field by field, which clients each thread's file holds, and transaction
// numbers.
func TestLogsLikePgbench(t *testing.T) {
	pg := needPgbench(t)
	f := newOutFixture(t)
	tests := []struct {
		name string
		args []string
		line *regexp.Regexp
		// exact: every client logs transactions 1..-t (no sampling).
		exact bool
		// words that must show in the time field of both tools' logs.
		words []string
	}{
		// (Under --sampling-rate 0.2, the test also checks that far fewer
		// than the 600 transactions are logged.)
		// Two threads, three clients: files .PID and .PID.1.
		{"plain", []string{"-f", "select.sql", "-c", "3", "-j", "2", "-t", "20"},
			lineRegexp(fClient, fTxNo, `\d+`, fScript, fEpoch, fMicros), true, nil},
		// Several scripts: script_no varies.
		{"scripts", []string{"-f", "select.sql@1", "-f", "spread.sql@1", "-c", "2", "-t", "20"},
			lineRegexp(fClient, fTxNo, `\d+`, `[01]`, fEpoch, fMicros), true, nil},
		// --rate adds the lag column; -L skips late transactions.
		{"rate", []string{"-f", "slow.sql", "-c", "1", "-t", "40", "-R", "1000", "-L", "1"},
			lineRegexp(fClient, fTxNo, `(?:\d+|skipped)`, fScript, fEpoch, fMicros, fLag), true, []string{"skipped"}},
		// --max-tries adds the retries column.
		{"retries", []string{"-f", "conflict.sql", "-c", "4", "-j", "2", "-t", "10", "--max-tries", "3"},
			lineRegexp(fClient, fTxNo, `(?:\d+|failed)`, fScript, fEpoch, fMicros, fRetries), true, nil},
		// Failures by kind.
		{"failures", []string{"-f", "conflict.sql", "-c", "4", "-j", "2", "-t", "10", "--failures-detailed"},
			lineRegexp(fClient, fTxNo, `(?:\d+|serialization|deadlock)`, fScript, fEpoch, fMicros), true, []string{"serialization"}},
		// Failures without detail.
		{"failed", []string{"-f", "conflict.sql", "-c", "4", "-j", "2", "-t", "10"},
			lineRegexp(fClient, fTxNo, `(?:\d+|failed)`, fScript, fEpoch, fMicros), true, []string{"failed"}},
		// A sample of the transactions.
		{"sampling", []string{"-f", "select.sql", "-c", "2", "-j", "2", "-t", "300", "--sampling-rate", "0.2"},
			lineRegexp(fClient, fTxNo, fTime, fScript, fEpoch, fMicros), false, nil},
		// Aggregates over one second.
		{"aggregate", []string{"-f", "select.sql", "-c", "2", "-j", "2", "-T", "2", "--aggregate-interval", "1"},
			aggregateLine, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := slices.Clone(tt.args)
			for i, a := range args {
				if strings.HasSuffix(a, ".sql") || strings.Contains(a, ".sql@") {
					args[i] = f.path(a)
				}
			}
			dir := t.TempDir()
			pgPrefix, gbPrefix := filepath.Join(dir, "log"), filepath.Join(dir, "gb", "log")
			if err := os.Mkdir(filepath.Dir(gbPrefix), 0o755); err != nil {
				t.Fatal(err)
			}
			p := execPgbench(t, pg, append(append([]string{"-n", "-l", "--log-prefix", pgPrefix}, args...), f.db)...)
			if p.code != 0 {
				t.Fatalf("pgbench: exit status %d\n%s", p.code, p.stderr)
			}
			f.gbench(t, 0, append([]string{"-l", "--log-prefix", gbPrefix}, args...)...)
			pgLogs, gbLogs := logFiles(t, pgPrefix), logFiles(t, gbPrefix)
			if !slices.Equal(sortedKeys(pgLogs), sortedKeys(gbLogs)) {
				t.Fatalf("gbench wrote %q, pgbench %q", sortedKeys(gbLogs), sortedKeys(pgLogs))
			}
			for tool, logs := range map[string]map[string][]string{"pgbench": pgLogs, "gbench": gbLogs} {
				checkLines(t, tool, logs, tt.line, tt.words)
				if n := countLines(logs); slices.Contains(args, "--sampling-rate") && (n == 0 || n > 300) {
					t.Errorf("%s: %d of 600 transactions logged at --sampling-rate 0.2", tool, n)
				}
			}
			if tt.line == aggregateLine {
				return
			}
			for name := range pgLogs {
				pc, gc := clientsOf(pgLogs[name]), clientsOf(gbLogs[name])
				if !slices.Equal(sortedKeys(pc), sortedKeys(gc)) {
					t.Errorf("%s: gbench logs clients %v, pgbench %v", name, sortedKeys(gc), sortedKeys(pc))
				}
				if !tt.exact {
					continue
				}
				for tool, clients := range map[string]map[string][]int{"pgbench": pc, "gbench": gc} {
					for c, nos := range clients {
						checkNumbering(t, tool, c, nos, tt.args)
					}
				}
			}
		})
	}
}

// checkLines matches every line against the line's pattern, and makes
// sure each word shows somewhere.
func checkLines(t *testing.T, tool string, logs map[string][]string, re *regexp.Regexp, words []string) {
	t.Helper()
	seen := map[string]bool{}
	for name, ls := range logs {
		if len(ls) == 0 {
			t.Errorf("%s: %s is empty", tool, name)
		}
		for _, l := range ls {
			if !re.MatchString(l) {
				t.Errorf("%s: %s: line %q does not match %s", tool, name, l, re)
			}
			if fs := strings.Fields(l); len(fs) > 2 {
				seen[fs[2]] = true
			}
		}
	}
	for _, w := range words {
		if !seen[w] {
			t.Errorf("%s: no %q transaction in the logs", tool, w)
		}
	}
}

func countLines(logs map[string][]string) int {
	n := 0
	for _, ls := range logs {
		n += len(ls)
	}
	return n
}

// checkNumbering checks that a client's transactions are numbered 1..-t.
func checkNumbering(t *testing.T, tool, client string, nos []int, args []string) {
	t.Helper()
	n, _ := strconv.Atoi(args[slices.Index(args, "-t")+1])
	for i, no := range nos {
		if no != i+1 || len(nos) != n {
			t.Errorf("%s: client %s numbers its transactions %v, want 1..%d", tool, client, nos, n)
			return
		}
	}
}

// clientsOf maps each client of per-transaction lines to its transaction
// numbers, in log order.
func clientsOf(ls []string) map[string][]int {
	out := map[string][]int{}
	for _, l := range ls {
		fs := strings.Fields(l)
		no, _ := strconv.Atoi(fs[1])
		out[fs[0]] = append(out[fs[0]], no)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestLogDefaultPrefix: without --log-prefix the files are pgbench_log.PID
// in the current directory.
func TestLogDefaultPrefix(t *testing.T) {
	f := newOutFixture(t)
	t.Chdir(t.TempDir())
	f.gbench(t, 0, "-f", f.path("select.sql"), "-c", "2", "-j", "2", "-t", "3", "-l")
	for _, name := range []string{fmt.Sprintf("pgbench_log.%d", os.Getpid()), fmt.Sprintf("pgbench_log.%d.1", os.Getpid())} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(lines(string(data))); n != 3 {
			t.Errorf("%s has %d lines, want 3", name, n)
		}
	}
}

// outRun is one gbench run with -l, --json and --hdr-log.
type outRun struct {
	out    outcome
	log    []string // lines of all threads' logs
	result *report.Result
	json   string
	hdrLog string
}

// runWithOutputs runs gbench with every output on, in dir.
func (f *outFixture) runWithOutputs(t *testing.T, dir, name string, args ...string) *outRun {
	t.Helper()
	r := &outRun{json: filepath.Join(dir, name+".json"), hdrLog: filepath.Join(dir, name+".hdr")}
	prefix := filepath.Join(dir, name+"_log")
	r.out = f.gbench(t, 0, append([]string{"-l", "--log-prefix", prefix, "--json", r.json, "--hdr-log", r.hdrLog}, args...)...)
	for _, ls := range logFiles(t, prefix) {
		r.log = append(r.log, ls...)
	}
	r.result = readJSON(t, r.json)
	return r
}

func readJSON(t *testing.T, path string) *report.Result {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := report.ReadResult(fh)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestJSONIsTrue checks --json and --hdr-log against the -l log of the
// same run: counts, sums and percentiles within HDR precision.
func TestJSONIsTrue(t *testing.T) {
	f := newOutFixture(t)
	// Long enough for a -P report and the rest of the run after it.
	run := f.runWithOutputs(t, t.TempDir(), "run", "-f", f.path("spread.sql"), "-c", "4", "-j", "2", "-T", "2", "-P", "1")
	res := run.result

	var lat []int64
	var sum float64
	for _, l := range run.log {
		v, err := strconv.ParseInt(strings.Fields(l)[2], 10, 64)
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lat = append(lat, v)
		sum += float64(v)
	}
	if n := int64(len(run.log)); res.Counters.Processed != n || res.Counters.Total != n || res.Latency.Count != n {
		t.Errorf("JSON counts %+v, the log has %d lines", res.Counters, n)
	}
	summary := fmt.Sprintf("number of transactions actually processed: %d\n", len(run.log))
	if !strings.Contains(run.out.stdout, summary) {
		t.Errorf("summary does not say %q:\n%s", summary, run.out.stdout)
	}
	if res.Latency.SumUs != sum {
		t.Errorf("JSON latency sum %v, the log's %v", res.Latency.SumUs, sum)
	}
	slices.Sort(lat)
	if float64(lat[0]) != res.Latency.MinUs || float64(lat[len(lat)-1]) != res.Latency.MaxUs {
		t.Errorf("JSON min/max %v/%v, the log's %d/%d", res.Latency.MinUs, res.Latency.MaxUs, lat[0], lat[len(lat)-1])
	}
	if len(res.Latency.Percentiles) != 5 {
		t.Fatalf("percentiles %+v", res.Latency.Percentiles)
	}
	for _, p := range res.Latency.Percentiles {
		exact := percentileOf(lat, p.P)
		// HDR reports the highest value of the bucket holding the exact
		// value; with 3 significant digits buckets are within 1/1024.
		if p.Us < exact || float64(p.Us) > float64(exact)*(1+1.0/1024)+1 {
			t.Errorf("p%v: JSON says %d us, the log %d us", p.P, p.Us, exact)
		}
	}

	// The HdrHistogram log's intervals add up to the run's histogram.
	total, n := readHdrLog(t, run.hdrLog)
	// A -T run reports its last boundary too; the log may have one more
	// interval for what came after it.
	if len(res.Intervals) == 0 || n != len(res.Intervals) && n != len(res.Intervals)+1 {
		t.Errorf("%d -P intervals in the JSON, %d in the HdrHistogram log; want some, and at most one more for the rest of the run", len(res.Intervals), n)
	}
	h, err := res.Latency.Hist()
	if err != nil {
		t.Fatal(err)
	}
	if !total.Raw().Equals(h.Raw()) || total.Count() != int64(len(lat)) {
		t.Errorf("--hdr-log intervals hold %d values, not the run's histogram of %d", total.Count(), len(lat))
	}
	// -P intervals never hold more than the run.
	var inIntervals int64
	for _, iv := range res.Intervals {
		inIntervals += iv.Counters.Processed
	}
	if inIntervals > res.Counters.Processed {
		t.Errorf("intervals hold %d transactions, the run %d", inIntervals, res.Counters.Processed)
	}
}

// percentileOf is the exact percentile of sorted values with HDR's rank.
func percentileOf(sorted []int64, p float64) int64 {
	rank := int64(p/100*float64(len(sorted)) + 0.5)
	rank = min(max(rank, 1), int64(len(sorted)))
	return sorted[rank-1]
}

// readHdrLog reads an HdrHistogram log and merges its intervals; it
// returns them and their number.
func readHdrLog(t *testing.T, path string) (*stats.Hist, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd := hdr.NewHistogramLogReader(bytes.NewReader(data))
	total := stats.NewHist()
	n := 0
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h == nil {
			break
		}
		total.Merge(stats.FromRaw(h))
		n++
	}
	if n == 0 {
		t.Fatalf("%s has no intervals:\n%s", path, data)
	}
	return total, n
}

// TestAggregateAddsUp: the aggregate lines of a run (the last partial
// interval included) add up to its summary.
func TestAggregateAddsUp(t *testing.T) {
	f := newOutFixture(t)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "agg_log")
	jsonPath := filepath.Join(dir, "agg.json")
	f.gbench(t, 0, "-f", f.path("select.sql"), "-c", "2", "-j", "2", "-T", "2", "-R", "300",
		"-l", "--aggregate-interval", "1", "--log-prefix", prefix, "--json", jsonPath)
	res := readJSON(t, jsonPath)
	var cnt int64
	var sum, lagSum float64
	for name, ls := range logFiles(t, prefix) {
		prev := int64(0)
		for _, l := range ls {
			fs := strings.Fields(l)
			start, _ := strconv.ParseInt(fs[0], 10, 64)
			if prev != 0 && start != prev+1 {
				t.Errorf("%s: interval %d follows %d", name, start, prev)
			}
			prev = start
			n, _ := strconv.ParseInt(fs[1], 10, 64)
			s, _ := strconv.ParseFloat(fs[2], 64)
			lag, _ := strconv.ParseFloat(fs[6], 64)
			cnt, sum, lagSum = cnt+n, sum+s, lagSum+lag
		}
		// The log opens just before the clock starts: the same second,
		// unless a second boundary fell in between.
		first, _ := strconv.ParseInt(strings.Fields(ls[0])[0], 10, 64)
		if s := res.Start.Unix(); first != s && first != s-1 {
			t.Errorf("%s: first interval %d, the run started at %d", name, first, s)
		}
	}
	if cnt != res.Counters.Processed || sum != res.Latency.SumUs || lagSum != res.Lag.SumUs {
		t.Errorf("aggregates: %d transactions, latency sum %v, lag sum %v; JSON: %d, %v, %v",
			cnt, sum, lagSum, res.Counters.Processed, res.Latency.SumUs, res.Lag.SumUs)
	}
}

// TestMergeRuns merges the JSON of two runs with "gbench merge" and checks
// it against the runs' own histograms merged.
func TestMergeRuns(t *testing.T) {
	f := newOutFixture(t)
	dir := t.TempDir()
	args := []string{"-f", f.path("spread.sql"), "-c", "2", "-j", "2", "-t", "40"}
	a := f.runWithOutputs(t, dir, "a", args...)
	b := f.runWithOutputs(t, dir, "b", args...)
	merged := filepath.Join(dir, "merged.json")
	o := runGbench("merge", "-o", merged, a.json, b.json)
	if o.code != 0 {
		t.Fatalf("merge: exit status %d\n%s", o.code, o.stderr)
	}
	m := readJSON(t, merged)
	ha, _ := a.result.Latency.Hist()
	hb, _ := b.result.Latency.Hist()
	ha.Merge(hb)
	hm, err := m.Latency.Hist()
	if err != nil {
		t.Fatal(err)
	}
	if !hm.Raw().Equals(ha.Raw()) {
		t.Error("merged histogram differs from the runs' histograms merged")
	}
	for _, p := range m.Latency.Percentiles {
		if want := ha.Quantile(p.P); p.Us != want {
			t.Errorf("merged p%v = %d, want %d", p.P, p.Us, want)
		}
	}
	if want := a.result.Counters.Processed + b.result.Counters.Processed; m.Counters.Processed != want || m.Latency.Count != want || int(want) != len(a.log)+len(b.log) {
		t.Errorf("merged %d transactions, want %d", m.Counters.Processed, want)
	}
	wantMean := (a.result.Latency.SumUs + b.result.Latency.SumUs) / float64(m.Latency.Count)
	if math.Abs(m.Latency.MeanUs-wantMean) > 1e-9*wantMean {
		t.Errorf("merged mean %v, want %v", m.Latency.MeanUs, wantMean)
	}
	if !strings.Contains(o.stdout, "merged runs: 2\n") { // -o FILE: the summary on standard output
		t.Errorf("merge summary:\n%s", o.stdout)
	}

	// To standard output by default.
	o = runGbench("merge", a.json, b.json)
	if o.code != 0 {
		t.Fatalf("merge to stdout: exit status %d\n%s", o.code, o.stderr)
	}
	if r, err := report.ReadResult(strings.NewReader(o.stdout)); err != nil || r.Latency.HDR != m.Latency.HDR {
		t.Errorf("merge to stdout: %v", err)
	}
	if !strings.Contains(o.stderr, "merged runs: 2\n") { // the JSON on standard output: the summary on standard error
		t.Errorf("merge summary:\n%s", o.stderr)
	}

	// Another script: refused.
	c := f.runWithOutputs(t, dir, "c", "-f", f.path("select.sql"), "-t", "5")
	o = runGbench("merge", a.json, c.json)
	want := fmt.Sprintf("gbench: error: %s cannot be merged with %s: different scripts: script 1 is %q, not %q\n",
		c.json, a.json, f.path("select.sql"), f.path("spread.sql"))
	if o.code != 1 || o.stderr != want || o.stdout != "" {
		t.Errorf("merge of different scripts: exit status %d\nstderr %q\nwant   %q", o.code, o.stderr, want)
	}
}

func TestMergeBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema": "something/2"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "gbench: error: no input files\n"},
		{[]string{"merge", bad}, "gbench: error: " + bad + `: not a gbench result: schema is "something/2", expected "gbench-result/1"` + "\n"},
		{[]string{"merge", filepath.Join(dir, "none.json")}, `gbench: error: could not open file "` + filepath.Join(dir, "none.json") + `": no such file or directory` + "\n"},
	}
	for _, tt := range tests {
		o := runGbench(tt.args...)
		if o.code != 1 || !strings.HasPrefix(o.stderr, tt.want) {
			t.Errorf("%q: exit status %d, stderr %q, want %q", tt.args, o.code, o.stderr, tt.want)
		}
	}
}

// TestOutputErrors: an output that cannot be written is reported and makes
// the exit status 2, and the summary is still printed.
func TestOutputErrors(t *testing.T) {
	f := newOutFixture(t)
	missing := filepath.Join(t.TempDir(), "no", "such")
	for _, opt := range []string{"--json", "--hdr-log"} {
		o := f.gbench(t, 2, "-f", f.path("select.sql"), "-t", "3", opt, missing)
		if !strings.Contains(o.stdout, "number of transactions actually processed: 3/3\n") {
			t.Errorf("%s: no summary:\n%s", opt, o.stdout)
		}
		want := fmt.Sprintf("gbench: error: %s: could not open file \"%s\": no such file or directory\n", opt, missing)
		if !strings.Contains(o.stderr, want) {
			t.Errorf("%s: stderr %q lacks %q", opt, o.stderr, want)
		}
	}
}
