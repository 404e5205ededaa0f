package main

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/output/report"
)

// TestGroupsOutputs runs open-loop readers at 200 tps beside a closed-loop
// writer whose pg_sleep makes it slow, with every output a run has: -P
// lines per group and the totals, -l files per group that parse as
// pgbench's logs, an --hdr-log per group, Prometheus metrics labelled
// by group, and one --json result whose totals are the groups' exactly and
// which gbench merge merges group by group.
func TestGroupsOutputs(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	readers := writeScript(t, "select 1;\n")
	writers := writeScript(t, "select pg_sleep(0.01);\n")
	js, hdrLog, prefix := filepath.Join(dir, "g.json"), filepath.Join(dir, "h.hlog"), filepath.Join(dir, "log")
	var stdout, stderr lockedBuffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: time.Now, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- Run(env, []string{"-n", "-T", "3", "-P", "1", "-l", "--log-prefix", prefix, "--json", js, "--hdr-log", hdrLog,
			"--metrics-addr", "127.0.0.1:0", testConninfo(),
			"--group", "readers", "-f", readers, "-c", "2", "-R", "200",
			"--group", "writers", "-f", writers, "-c", "1"})
	}()
	url := waitServing(t, &stderr)
	var scraped []byte
	code := -1
	for code < 0 { // gbench waits for a scrape after the run
		select {
		case code = <-done:
		case <-time.After(200 * time.Millisecond):
			if b, ok := tryScrape(url); ok {
				scraped = b
			}
		}
	}
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	// -P: a line per group and a line of totals per interval.
	for _, who := range []string{"group readers", "group writers", "all groups"} {
		if n := regexp.MustCompile(`(?m)^progress: [0-9.]+ s, [0-9.]+ tps, .*, `+who+`$`).FindAllStringIndex(stderr.String(), -1); len(n) < 2 {
			t.Errorf("%d -P lines of %s\n%s", len(n), who, stderr.String())
		}
	}
	// Metrics: each group's with its label.
	for _, g := range []string{"readers", "writers"} {
		if !regexp.MustCompile(`gbench_transactions_total\{[^}]*group="` + g + `"`).Match(scraped) {
			t.Errorf("no gbench_transactions_total of group %s in the last scrape:\n%.2000s", g, scraped)
		}
	}
	// promtool's check is a subtest: without promtool it is a visible skip
	// (a failure under GBENCH_REQUIRE_SERVICES=1), and the checks below
	// still run.
	t.Run("promtool", func(t *testing.T) {
		checkMetrics(t, testsrv.NeedCommand(t, "promtool", "Debian's prometheus"), "after a run of groups", scraped)
	})
	// One --json result: the totals and each group's own.
	r, err := readFile(js, report.ReadResult)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 2 || r.Groups[0].Name != "readers" || r.Groups[1].Name != "writers" {
		t.Fatalf("groups %+v", r.Groups)
	}
	rd, wr := r.Groups[0].Result, r.Groups[1].Result
	// 600 arrivals expected in 3 s: 4.5 standard deviations of a Poisson
	// count is 4.5*sqrt(600)/3 tps.
	if math.Abs(rd.TPS-200) > 4.5*math.Sqrt(600)/3 {
		t.Errorf("readers ran at %.1f tps, given 200", rd.TPS)
	}
	if wr.Lag != nil || rd.Lag == nil || wr.Latency.MeanUs < 10000 {
		t.Errorf("writers' lag %v, readers' lag %v, writers' mean %v us", wr.Lag, rd.Lag, wr.Latency.MeanUs)
	}
	if r.Counters.Processed != rd.Counters.Processed+wr.Counters.Processed || r.Latency.Count != rd.Latency.Count+wr.Latency.Count ||
		r.Config.Clients != 3 || math.Abs(r.TPS-(rd.TPS+wr.TPS)) > 1e-9 || len(r.Scripts) != 2 || r.Scripts[1].Group != "writers" {
		t.Errorf("totals: %d processed, %d latencies, %d clients, tps %v, scripts %d", r.Counters.Processed, r.Latency.Count, r.Config.Clients, r.TPS, len(r.Scripts))
	}
	// The totals' percentiles come from the merged histograms: the
	// largest latency is the larger group's, exactly.
	if r.Latency.MaxUs != max(rd.Latency.MaxUs, wr.Latency.MaxUs) {
		t.Errorf("max %v, groups' %v and %v", r.Latency.MaxUs, rd.Latency.MaxUs, wr.Latency.MaxUs)
	}
	if len(r.Intervals) == 0 || len(rd.Intervals) == 0 {
		t.Errorf("%d intervals in the totals, %d in readers'", len(r.Intervals), len(rd.Intervals))
	}
	// -l: pgbench's log files, one set per group, every line in pgbench's
	// format (client, transaction, time, script, epoch, microseconds, and
	// the schedule lag under --rate), one per transaction.
	for _, g := range []struct {
		name   string
		fields int
		want   int64
	}{{"readers", 7, rd.Counters.Processed}, {"writers", 6, wr.Counters.Processed}} {
		files, _ := filepath.Glob(prefix + "." + g.name + ".*")
		if len(files) == 0 {
			t.Errorf("no -l file of group %s", g.name)
			continue
		}
		var lines int64
		for _, f := range files {
			data, _ := os.ReadFile(f)
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				fs := strings.Fields(sc.Text())
				if len(fs) != g.fields {
					t.Errorf("%s: %q is not a pgbench log line of %d fields", f, sc.Text(), g.fields)
					break
				}
				for _, x := range fs {
					if _, err := strconv.ParseInt(x, 10, 64); err != nil {
						t.Errorf("%s: %q: field %q is not a number", f, sc.Text(), x)
					}
				}
				lines++
			}
		}
		if lines != g.want {
			t.Errorf("group %s: %d log lines, %d transactions", g.name, lines, g.want)
		}
	}
	// --hdr-log: one per group.
	for _, g := range []string{"readers", "writers"} {
		if data, err := os.ReadFile(filepath.Join(dir, "h."+g+".hlog")); err != nil || !bytes.Contains(data, []byte("HISTF")) {
			t.Errorf("--hdr-log of %s: %v\n%.300s", g, err, data)
		}
	}
	// gbench merge: the totals and each group merge exactly.
	out := runGbench("merge", "-o", filepath.Join(dir, "m.json"), js, js)
	if out.code != exitOK {
		t.Fatalf("merge: exit %d\n%s", out.code, out.stderr)
	}
	m, err := readFile(filepath.Join(dir, "m.json"), report.ReadResult)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Groups) != 2 || m.Counters.Processed != 2*r.Counters.Processed || m.Groups[0].Result.Counters.Processed != 2*rd.Counters.Processed ||
		m.Groups[1].Result.Latency.Count != 2*wr.Latency.Count || m.Groups[1].Result.Latency.MaxUs != wr.Latency.MaxUs {
		t.Errorf("merged: %d groups, %d processed", len(m.Groups), m.Counters.Processed)
	}
	// A result of groups does not merge with one of other groups or none.
	other := filepath.Join(dir, "o.json")
	if o := runGbench("-n", "-T", "1", "-f", readers, "--json", other, testConninfo()); o.code != exitOK {
		t.Fatalf("plain run: exit %d\n%s", o.code, o.stderr)
	}
	if o := runGbench("merge", js, other); o.code != exitUsage || !strings.Contains(o.stderr, "different") {
		t.Errorf("merge with a run of no groups: exit %d\n%s", o.code, o.stderr)
	}
	// Outputs shared by the groups are given once.
	if o := runGbench("-n", "-T", "1", testConninfo(), "--group", "a", "-f", readers, "-P", "1", "--group", "b", "-f", readers); o.code != exitUsage ||
		!strings.Contains(o.stderr, "give -P once, before the first --group") {
		t.Errorf("-P in one group: exit %d\n%s", o.code, o.stderr)
	}
	if o := runGbench("-n", "-T", "1", testConninfo(), "--group", "a/b", "-f", readers); o.code != exitUsage || !strings.Contains(o.stderr, "invalid group name \"a/b\"") {
		t.Errorf("a/b: exit %d\n%s", o.code, o.stderr)
	}
}
