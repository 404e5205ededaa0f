package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/run/series"
)

// startSeriesSandbox starts a throwaway PostgreSQL for the series tests,
// skipping when none can be started (failing under
// GBENCH_REQUIRE_SERVICES=1).
func startSeriesSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	// The sandbox lives as long as Start's ctx: the test's whole life.
	sb, err := sandbox.Start(context.Background(), sandbox.Options{Postgres: true, MaxConnections: 40, Log: io.Discard})
	if err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			testsrv.Need(t, "no server binaries for the sandbox: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Errorf("closing the sandbox: %v", err)
		}
	})
	return sb
}

// readSeries reads a series result.
func readSeries(t *testing.T, path string) *series.Result {
	t.Helper()
	r, err := readFile(path, series.Read)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSeriesOnSandbox runs gbench curve, slo and ab against a throwaway
// server whose throughput and latency are set by the scripts (advisory
// locks and pg_sleep), so that the figures are known in advance and no
// bug can fake them, then reports them and checks the pages in Chromium.
func TestSeriesOnSandbox(t *testing.T) {
	sb := startSeriesSandbox(t)
	conninfo := sb.PostgresConnString()
	dir := t.TempDir()
	t.Run("curve", func(t *testing.T) { testCurve(t, dir, conninfo) })
	t.Run("curve-open", func(t *testing.T) { testOpenCurve(t, dir, conninfo) })
	t.Run("slo", func(t *testing.T) { testSLO(t, dir, conninfo) })
	t.Run("slo-bounds", func(t *testing.T) { testSLOBounds(t, dir, conninfo) })
	t.Run("ab-settings", func(t *testing.T) { testABSettings(t, dir, conninfo) })
	t.Run("ab-builds", func(t *testing.T) { testABBuilds(t, dir) })
	t.Run("report", func(t *testing.T) {
		for _, name := range []string{"curve", "slo", "ab"} {
			testSeriesReport(t, filepath.Join(dir, name+".json"), filepath.Join(dir, name+"-report"))
		}
	})
}

// testCurve: two advisory locks held 40 ms each cap the server at 2/0.04
// = 50 tps whatever the clients, like a server with two backends; one
// client gets 25 tps. The curve must rise from 1 to 2 clients, then stay
// flat under the cap, and its knee must be where it flattens.
func testCurve(t *testing.T, dir, conninfo string) {
	const sleep, locks = 0.04, 2
	script := writeScript(t, "BEGIN;\nSELECT pg_advisory_xact_lock(:client_id % 2);\nSELECT pg_sleep(0.04);\nEND;\n")
	out := filepath.Join(dir, "curve.json")
	o := runGbench("curve", "--clients", "1,2,4,8", "--repeats", "2", "--warmup", "0.3", "--seed", "7", "-o", out,
		"--", "-n", "-f", script, "-T", "2", "--wait-events=20ms", conninfo)
	if o.code != exitOK {
		t.Fatalf("gbench curve: status %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := readSeries(t, out)
	// --wait-events: every run has a profile; with 8 clients and two
	// locks, six clients wait for an advisory lock at every read.
	for _, run := range r.Runs {
		w := run.Activity.WaitEvents
		if w == nil || w.Reads == 0 {
			t.Fatalf("run %d (%d clients): wait events %+v (%s)", run.Order, run.Clients, w, run.Activity.WaitEventsNote)
		}
		if run.Clients == 8 && (len(w.Events) == 0 || w.Events[0].Type != "Lock" || w.Events[0].Event != "advisory") {
			t.Errorf("run %d at 8 clients: profile %+v, want Lock:advisory first", run.Order, w.Events)
		}
	}
	if len(r.Runs) != 8 || r.Partial || r.Curve == nil || r.Curve.Loop != "closed" {
		t.Fatalf("%d runs, partial %v, curve %+v", len(r.Runs), r.Partial, r.Curve)
	}
	tps := map[int]float64{}
	for _, p := range r.Curve.Points {
		if p.Runs != 2 {
			t.Errorf("c=%d: %d valid runs, want 2", p.Clients, p.Runs)
		}
		tps[p.Clients] = p.TPS.Median
		if limit := locks / sleep * 1.05; p.TPS.Max > limit {
			t.Errorf("c=%d: %.1f tps, above the %.1f tps two 40 ms locks allow", p.Clients, p.TPS.Max, limit)
		}
	}
	t.Logf("tps by clients: %v", tps)
	if one := 1 / sleep; tps[1] < 0.6*one || tps[1] > 1.05*one {
		t.Errorf("one client: %.1f tps, want about %.0f", tps[1], one)
	}
	if tps[2] < 1.5*tps[1] {
		t.Errorf("the curve does not rise: %.1f tps at 2 clients, %.1f at 1", tps[2], tps[1])
	}
	if tps[8] > 1.15*tps[2] || tps[4] > 1.15*tps[2] {
		t.Errorf("the curve does not flatten past 2 clients: %v", tps)
	}
	k := r.Curve.Knee
	if k == nil || (k.Clients != 2 && k.Clients != 4) {
		t.Fatalf("knee %+v (%s), want 2 clients (or 4 on a noisy machine)", k, r.Curve.KneeNote)
	}
	if k.WorkLowTPS != 0.6*k.TPS || k.WorkHighTPS != 0.7*k.TPS {
		t.Errorf("working point %v–%v for a knee at %v tps", k.WorkLowTPS, k.WorkHighTPS, k.TPS)
	}
	if want := regexp.MustCompile(`Knee: [24] clients, [0-9.]+ tps`); !want.MatchString(o.stdout) {
		t.Errorf("no knee in the summary:\n%s", o.stdout)
	}
	if !strings.Contains(o.stdout, "Working point: 60–70% of the knee's throughput") {
		t.Errorf("no working point in the summary:\n%s", o.stdout)
	}
	checkContext(t, r)
	// Shuffled: the order is not the plan's, and --seed replays it.
	var order []int
	for _, run := range r.Runs {
		order = append(order, run.Clients)
	}
	if want := []int{1, 1, 2, 2, 4, 4, 8, 8}; equalInts(order, want) {
		t.Errorf("runs in plan order %v: not shuffled", order)
	}
	var replay []int
	for _, s := range series.Order(4, 2, 7) {
		replay = append(replay, []int{1, 2, 4, 8}[s.Point])
	}
	if !equalInts(order, replay) {
		t.Errorf("run order %v, want the seed's %v", order, replay)
	}
}

// testOpenCurve: 2 clients sleeping 10 ms serve at most 200 tps. Offered
// 40 tps, they keep up; offered 400, they achieve no more than 200, and
// the queue shows in the lag and the latency from the schedule.
func testOpenCurve(t *testing.T, dir, conninfo string) {
	script := writeScript(t, "SELECT pg_sleep(0.01);\n")
	out := filepath.Join(dir, "open.json")
	o := runGbench("curve", "--rates", "40,400", "--repeats", "1", "--warmup", "0", "-o", out, "--", "-n", "-f", script, "-c", "2", "-T", "2", conninfo)
	if o.code != exitOK {
		t.Fatalf("gbench curve --rates: status %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	c := readSeries(t, out).Curve
	if c.Loop != "open" || len(c.Points) != 2 || c.Knee != nil {
		t.Fatalf("curve %+v", c)
	}
	low, high := c.Points[0], c.Points[1]
	t.Logf("offered 40: %.1f tps, p99 %.0f us, lag %.0f us; offered 400: %.1f tps, p99 %.0f us, lag %.0f us",
		low.TPS.Median, low.P99Us.Median, low.LagMeanUs.Median, high.TPS.Median, high.P99Us.Median, high.LagMeanUs.Median)
	if low.TPS.Median < 0.7*40 || low.TPS.Median > 1.3*40 {
		t.Errorf("offered 40 tps, achieved %.1f", low.TPS.Median)
	}
	if high.TPS.Median > 1.05*200 {
		t.Errorf("offered 400 tps, achieved %.1f: above what two 10 ms clients can do", high.TPS.Median)
	}
	if high.LagMeanUs.Median < 10*low.LagMeanUs.Median || high.P99Us.Median < 100e3 || high.P99Us.Median < 2*low.P99Us.Median {
		t.Errorf("overload does not show in the lag and latency: %+v %+v", low, high)
	}
	if !strings.Contains(o.stdout, "offered tps  achieved tps") {
		t.Errorf("summary:\n%s", o.stdout)
	}
}

// checkContext checks the context a series records.
func checkContext(t *testing.T, r *series.Result) {
	t.Helper()
	c := r.Context
	if c == nil || c.Postgres == nil || !strings.HasPrefix(c.Postgres.Version, "1") || c.Client.Cores < 1 || c.Client.OS.Release == "" || c.Gbench.Version != version {
		t.Fatalf("context: %+v", c)
	}
	fsync := false
	for _, s := range c.Postgres.Settings {
		fsync = fsync || (s.Name == "fsync" && s.Value == "on" && s.Source == "command line")
	}
	if !fsync {
		t.Errorf("the sandbox's fsync=on (passed on the command line) is not among the recorded settings: %+v", c.Postgres.Settings)
	}
	if c.Postgres.Durability != "on" {
		t.Errorf("context durability %q, want on (the sandbox's default)", c.Postgres.Durability)
	}
	for _, run := range r.Runs {
		a := run.Activity
		if a == nil || a.Postgres == nil || a.Postgres.WALBytes == nil || len(a.Notes) > 0 {
			t.Fatalf("run %d: activity %+v", run.Order, a)
		}
	}
}

// testSLO: one client-slot sleeps 10 ms, so 2 clients serve at most 200
// tps. Below that, p99 stays near 10 ms; above it the queue grows for the
// whole run and p99 with it. The search must find the ceiling close under
// 200 tps, though its range goes up to 400.
func testSLO(t *testing.T, dir, conninfo string) {
	script := writeScript(t, "SELECT pg_sleep(0.01);\n")
	out := filepath.Join(dir, "slo.json")
	o := runGbench("slo", "--slo", "p99<=100ms", "--min-rate", "20", "--max-rate", "400", "--resolution", "10",
		"--repeats", "2", "--warmup", "0.3", "-o", out, "--", "-n", "-f", script, "-c", "2", "-T", "1", conninfo)
	if o.code != exitOK {
		t.Fatalf("gbench slo: status %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := readSeries(t, out)
	s := r.SLO
	t.Logf("answer %v tps (%s), %d probes", s.RateTPS, s.Outcome, len(s.Probes))
	const capacity = 2 / 0.01
	if s.Outcome != series.OutcomeFound || s.RateTPS < 0.3*capacity || s.RateTPS > 1.15*capacity {
		t.Fatalf("%s at %v tps (%s), want found within [%v, %v]:\n%s", s.Outcome, s.RateTPS, s.Note, 0.3*capacity, 1.15*capacity, o.stdout)
	}
	if len(s.Probes) != len(r.Runs) {
		t.Errorf("%d probes for %d runs: every run is evidence", len(s.Probes), len(r.Runs))
	}
	var confirms []float64
	failedAbove := false
	for _, p := range s.Probes {
		run := r.Runs[p.Run]
		if run.Rate != p.RateTPS || run.Clients != 2 {
			t.Errorf("probe %+v is not its run's (%v tps, %d clients)", p, run.Rate, run.Clients)
		}
		if p.Stage == "confirm" && p.RateTPS == s.RateTPS {
			confirms = append(confirms, p.ValueUs)
		}
		if p.RateTPS > s.RateTPS && !p.Meets {
			failedAbove = true
			if p.ValueUs <= 100e3 {
				t.Errorf("probe %+v fails with p99 under the bound", p)
			}
		}
	}
	if len(confirms) != 2 || series.Median(confirms) > 100e3 {
		t.Errorf("confirmations of %v tps: %v", s.RateTPS, confirms)
	}
	if !failedAbove || s.FailingTPS <= s.RateTPS {
		t.Errorf("no failing probe above the answer (failing %v)", s.FailingTPS)
	}
	if !strings.Contains(o.stdout, "Evidence: every probe") || !strings.Contains(o.stdout, "holds up to") {
		t.Errorf("summary:\n%s", o.stdout)
	}
}

// testSLOBounds: an objective no rate meets, and one every rate meets,
// each with its defined outcome and exit status 0.
func testSLOBounds(t *testing.T, dir, conninfo string) {
	script := writeScript(t, "SELECT pg_sleep(0.01);\n")
	for _, c := range []struct {
		slo, outcome string
		rate         float64
	}{
		{"p99<=1ms", series.OutcomeNowhere, 0},                 // 10 ms per transaction
		{"p99<=5s,failures<=0%", series.OutcomeEverywhere, 50}, // far below the 200 tps capacity
	} {
		out := filepath.Join(dir, "bounds.json")
		// A fixed seed fixes the Poisson schedules: at the search's lowest
		// rate, 5 tps for 2 s, a random one would schedule no transaction
		// once in e^10 (and for 1 s once in e^5, 0.7%: seen failing).
		o := runGbench("slo", "--slo", c.slo, "--max-rate", "50", "--repeats", "2", "--warmup", "0", "--seed", "7", "-o", out,
			"--", "-n", "-f", script, "-c", "2", "-T", "2", conninfo)
		if o.code != exitOK {
			t.Fatalf("%s: status %d\n%s", c.slo, o.code, o.stderr)
		}
		s := readSeries(t, out).SLO
		if s.Outcome != c.outcome || s.RateTPS != c.rate || len(s.Probes) > 4 {
			t.Errorf("%s: %s at %v tps after %d probes (%s), want %s at %v", c.slo, s.Outcome, s.RateTPS, len(s.Probes), s.Note, c.outcome, c.rate)
		}
	}
}

// testABSettings: B turns index scans off, so each of its lookups in a
// 100 000-row table becomes a sequential scan; the settings are applied
// with ALTER SYSTEM before each run. The table's scan counters must show
// one sequential scan per B transaction and one index scan per A
// transaction, so the settings changed between interleaved runs; B must
// be far slower; the server's configuration must be restored at the end.
func testABSettings(t *testing.T, dir, conninfo string) {
	cfg, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := cfg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(ctx, "CREATE TABLE abt (id int PRIMARY KEY, v text); INSERT INTO abt SELECT i, md5(i::text) FROM generate_series(1, 100000) i; ANALYZE abt"); err != nil {
		t.Fatal(err)
	}
	scans := func() (seq, idx int64) {
		rows, err := conn.QueryText(ctx, "SELECT pg_stat_clear_snapshot(), seq_scan, coalesce(idx_scan, 0) FROM pg_stat_user_tables WHERE relname = 'abt'")
		if err != nil {
			t.Fatal(err)
		}
		seq, _ = strconv.ParseInt(rows[0][1], 10, 64)
		idx, _ = strconv.ParseInt(rows[0][2], 10, 64)
		return seq, idx
	}
	seq0, idx0 := scans()
	script := writeScript(t, "\\set id random(1, 100000)\nSELECT v FROM abt WHERE id = :id;\n")
	out := filepath.Join(dir, "ab.json")
	o := runGbench("ab", "--set-a", "enable_seqscan=on", "--set-b", "enable_indexscan=off", "--set-b", "enable_bitmapscan=off",
		"--repeats", "3", "--warmup", "0", "-o", out, "--", "-n", "-f", script, "-T", "1", conninfo)
	if o.code != exitOK {
		t.Fatalf("gbench ab: status %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := readSeries(t, out)
	ab := r.AB
	var txA, txB int64
	for i, run := range r.Runs {
		switch run.Variant {
		case "A":
			txA += run.Processed
		case "B":
			txB += run.Processed
		default:
			t.Fatalf("run %d: variant %q", i, run.Variant)
		}
		if i%2 == 1 && run.Variant == r.Runs[i-1].Variant {
			t.Errorf("runs %d and %d are both %s: not interleaved", i-1, i, run.Variant)
		}
	}
	// The statistics of a backend reach the counters when it exits; the
	// runs' backends have, but give the last one a moment.
	var seq, idx int64
	for range 50 {
		if seq, idx = scans(); seq-seq0 >= txB && idx-idx0 >= txA {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("A: %d transactions, %d index scans; B: %d transactions, %d sequential scans; B/A tps %.3f", txA, idx-idx0, txB, seq-seq0, ab.Ratio)
	if seq-seq0 < txB || seq-seq0 > txB+2 || idx-idx0 < txA || idx-idx0 > txA+2 {
		t.Errorf("scans do not match the sides: the settings did not change between runs")
	}
	if ab.Verdict == series.VerdictB || ab.Ratio > 0.5 || ab.A.Point.Runs != 3 || ab.B.Point.Runs != 3 {
		t.Errorf("verdict %s, ratio %.3f (%s)", ab.Verdict, ab.Ratio, ab.Reason)
	}
	if ab.Verdict == series.VerdictA && !strings.Contains(o.stdout, "A is better on tps") {
		t.Errorf("summary:\n%s", o.stdout)
	}
	// Restored: nothing of ours is left in postgresql.auto.conf.
	rows, err := conn.QueryText(ctx, "SELECT count(*) FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf'")
	if err != nil || rows[0][0] != "0" {
		t.Errorf("settings left in postgresql.auto.conf: %v %v", rows, err)
	}
	// A setting that needs a restart is refused before any run.
	o = runGbench("ab", "--set-a", "shared_buffers=64MB", "-o", filepath.Join(dir, "x.json"), "--", "-n", "-f", script, "-T", "1", conninfo)
	if o.code != exitUsage || !strings.Contains(o.stderr, `setting "shared_buffers" can only change with a server restart`) {
		t.Errorf("shared_buffers: status %d\n%s", o.code, o.stderr)
	}
}

// testABBuilds compares a PostgreSQL build with itself: each side must
// run against a throwaway server of its own, set up by --setup, and record
// that server's version.
func testABBuilds(t *testing.T, dir string) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(bins) == 0 {
		testsrv.Need(t, "no PostgreSQL build in /usr/lib/postgresql/*/bin")
	}
	setup := writeScript(t, "CREATE TABLE kv (k int PRIMARY KEY, v text); INSERT INTO kv SELECT i, 'v' || i FROM generate_series(1, 1000) i;")
	script := writeScript(t, "\\set k random(1, 1000)\nSELECT v FROM kv WHERE k = :k;\n")
	out := filepath.Join(dir, "ab-builds.json")
	o := runGbench("ab", "--build-a", bins[0], "--build-b", bins[0], "--setup", setup, "--repeats", "3", "--warmup", "0",
		"-o", out, "--", "-n", "-f", script, "-T", "1")
	if o.code != exitOK {
		t.Fatalf("gbench ab --build-a --build-b: status %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	ab := readSeries(t, out).AB
	for _, s := range []series.Side{ab.A, ab.B} {
		if s.Build != bins[0] || s.Point.Runs != 3 || s.Context == nil || s.Context.Postgres == nil || s.Context.Postgres.Version == "" {
			t.Errorf("side %s: build %q, %d runs, context %+v", s.Variant, s.Build, s.Point.Runs, s.Context)
		}
	}
	portOf := func(cmd []string) string { return regexp.MustCompile(`port=\d+`).FindString(strings.Join(cmd, " ")) }
	if pa, pb := portOf(ab.A.Command), portOf(ab.B.Command); pa == "" || pa == pb {
		t.Errorf("A and B ran against %q and %q: want two servers", pa, pb)
	}
	if !strings.Contains(o.stdout, "build "+bins[0]) {
		t.Errorf("summary:\n%s", o.stdout)
	}
}

// testSeriesReport reports a result and checks the page in Chromium.
func testSeriesReport(t *testing.T, in, outDir string) {
	o := runGbench("report", in, "-o", outDir)
	if o.code != exitOK {
		t.Fatalf("gbench report %s: status %d\n%s", in, o.code, o.stderr)
	}
	r := readSeries(t, in)
	charts := 0
	for _, c := range []string{"curve-tps.svg", "curve-latency.svg", "slo.svg", "ab.svg", "ab-rounds.svg"} {
		if _, err := os.Stat(filepath.Join(outDir, c)); err == nil {
			charts++
		}
	}
	want := map[string]int{series.KindCurve: 2, series.KindSLO: 1, series.KindAB: 2}[r.Kind]
	if charts != want {
		t.Errorf("%s: %d charts, want %d", r.Kind, charts, want)
	}
	page := filepath.Join(outDir, "report.html")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, string(b))
	checkInBrowser(t, page, want)
}

// checkSelfContained makes sure a page loads nothing from elsewhere.
func checkSelfContained(t *testing.T, page string) {
	t.Helper()
	for _, bad := range []string{"<script", "<link", "<img", "src=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q: it must be self-contained", bad)
		}
	}
	if n := strings.Count(page, "http"); n != strings.Count(page, `xmlns="http://www.w3.org/2000/svg"`) {
		t.Errorf("the page names an address besides the SVG namespace")
	}
}

// chromium finds the browser, skipping the test when there is none
// (failing under GBENCH_REQUIRE_SERVICES=1: .ci/test.sh installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	testsrv.Need(t, "no chromium to check the page in (apt-get install -y chromium)")
	return ""
}

// probeScript is added to a copy of the page under test: it records
// script errors and console errors, then, once the page has loaded, the
// rendered size of every chart, into an element that --dump-dom shows.
const probeScript = `<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
var __consoleError = console.error;
console.error = function () { window.__errors.push(Array.prototype.join.call(arguments, ' ')); __consoleError.apply(console, arguments); };
window.addEventListener('load', function () {
  var charts = [];
  document.querySelectorAll('figure svg').forEach(function (s) {
    var r = s.getBoundingClientRect();
    charts.push({w: Math.round(r.width), h: Math.round(r.height), marks: s.querySelectorAll('circle, rect, polyline').length});
  });
  var out = document.createElement('pre');
  out.id = 'gbench-probe';
  out.textContent = JSON.stringify({errors: window.__errors, charts: charts, tables: document.querySelectorAll('table').length});
  document.body.appendChild(out);
});
</script>`

// checkInBrowser loads the page in headless Chromium and checks that it
// renders its charts with no error in the console.
func checkInBrowser(t *testing.T, page string, charts int) {
	t.Helper()
	bin := chromium(t)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(filepath.Dir(page), "probe.html")
	if err := os.WriteFile(probe, []byte(strings.Replace(string(b), "<head>", "<head>\n"+probeScript, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--virtual-time-budget=2000", "--dump-dom", "file://"+probe)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("browser console: %s", line)
		}
	}
	m := regexp.MustCompile(`(?s)<pre id="gbench-probe">(.*?)</pre>`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("the page did not finish loading; DOM:\n%.2000s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	var got struct {
		Errors []string
		Charts []struct{ W, H, Marks int }
		Tables int
	}
	text := strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">").Replace(m[1])
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("probe output %q: %v", text, err)
	}
	if len(got.Errors) > 0 {
		t.Errorf("errors in the page: %q", got.Errors)
	}
	if len(got.Charts) != charts || got.Tables < 2 {
		t.Errorf("%d charts and %d tables rendered, want %d charts and tables", len(got.Charts), got.Tables, charts)
	}
	for i, c := range got.Charts {
		if c.W < 300 || c.H < 150 || c.Marks < 3 {
			t.Errorf("chart %d rendered %dx%d with %d marks", i, c.W, c.H, c.Marks)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
