package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGroupsRunTogether runs open-loop readers at 200 tps beside a
// closed-loop writer whose pg_sleep makes it slow: each group's summary
// shows its own clients, the readers' throughput is their rate within the
// Poisson tolerance, and a group's threshold decides the exit status.
func TestGroupsRunTogether(t *testing.T) {
	needServer(t)
	readers := writeScript(t, "select 1;\n")
	writers := writeScript(t, "select pg_sleep(0.01);\n")
	out := runGbench("-n", "-T", "3", testConninfo(),
		"--group", "readers", "-f", readers, "-c", "2", "-R", "200",
		"--group", "writers", "-f", writers, "-c", "1", "--threshold", "p50>=10ms")
	if out.code != 0 {
		t.Fatalf("exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	r, w := strings.Index(out.stdout, "\ngroup readers:\n"), strings.Index(out.stdout, "\ngroup writers:\n")
	if r < 0 || w < r {
		t.Fatalf("no summary per group\n%s", out.stdout)
	}
	parts := []string{"", out.stdout[r:w], out.stdout[w:]}
	tps := func(s string) float64 {
		m := regexp.MustCompile(`\ntps = ([0-9.]+) `).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no tps in\n%s", s)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	// 600 arrivals expected in 3 s: four standard deviations is 4*sqrt(600)/3 tps.
	if r := tps(parts[1]); math.Abs(r-200) > 4*math.Sqrt(600)/3 {
		t.Errorf("readers ran at %.1f tps, given 200", r)
	}
	if !strings.Contains(parts[1], "number of clients: 2\n") || !strings.Contains(parts[1], "rate limit schedule lag") {
		t.Errorf("readers\n%s", parts[1])
	}
	if !strings.Contains(parts[2], "number of clients: 1\n") || strings.Contains(parts[2], "rate limit") || tps(parts[2]) > 110 {
		t.Errorf("writers\n%s", parts[2])
	}
	if !strings.Contains(parts[2], " - p50>=10ms: ") || !strings.Contains(parts[2], "\nall groups: ") {
		t.Errorf("no verdict or totals\n%s", parts[2])
	}
	// The same writers breaching a bound: exit 3.
	out = runGbench("-n", "-T", "1", testConninfo(), "--group", "w", "-f", writers, "--threshold", "p50<=1ms", "--group", "r", "-f", readers)
	if out.code != 3 {
		t.Errorf("breach: exit %d\n%s", out.code, out.stderr)
	}
	// Options one run owns are refused.
	out = runGbench("-n", "-T", "1", "--threshold", "p99<=1s", "--threshold-abort", testConninfo(), "--group", "w", "-f", writers)
	if out.code != 1 || !strings.Contains(out.stderr, `group "w": --threshold-abort stops one run`) {
		t.Errorf("--threshold-abort: exit %d %s", out.code, out.stderr)
	}
	// --json writes one result for all groups (TestGroupsOutputs reads it).
	js := filepath.Join(t.TempDir(), "r.json")
	out = runGbench("-n", "-T", "1", "--json", js, testConninfo(), "--group", "w", "-f", writers, "--group", "r", "-f", readers)
	data, err := os.ReadFile(js)
	if out.code != 0 || err != nil || !strings.Contains(string(data), `"groups": [`) {
		t.Errorf("--json: exit %d, %v", out.code, err)
	}
}

// TestStagesStep runs two stages of an open-loop script, 50 then 200 tps:
// each is reported on its own and reaches its rate within the Poisson
// tolerance.
func TestStagesStep(t *testing.T) {
	needServer(t)
	s := writeScript(t, "select 1;\n")
	js := filepath.Join(t.TempDir(), "s.json")
	out := runGbench("-n", "-f", s, "-c", "2", "-P", "1", "--json", js, "--stage", "rate=50,time=2", "--stage", "rate=200,time=2", testConninfo())
	if out.code != 0 {
		t.Fatalf("exit %d\n%s", out.code, out.stderr)
	}
	a, b := strings.Index(out.stdout, "\nstage 1 (rate=50,time=2):\n"), strings.Index(out.stdout, "\nstage 2 (rate=200,time=2):\n")
	if a < 0 || b < a || !strings.Contains(out.stdout[b:], "\nall stages: ") {
		t.Fatalf("no section per stage\n%s", out.stdout)
	}
	for _, c := range []struct {
		text string
		rate float64
	}{{out.stdout[a:b], 50}, {out.stdout[b:], 200}} {
		m := regexp.MustCompile(`\ntps = ([0-9.]+) `).FindStringSubmatch(c.text)
		if m == nil {
			t.Fatalf("no tps in\n%s", c.text)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		if n := c.rate * 2; math.Abs(v-c.rate) > 4*math.Sqrt(n)/2 {
			t.Errorf("stage at %g tps ran at %.1f", c.rate, v)
		}
	}
	// Each stage's result has its -P intervals.
	for _, n := range []string{"s.stage1.json", "s.stage2.json"} {
		data, err := os.ReadFile(filepath.Join(filepath.Dir(js), n))
		if err != nil || !strings.Contains(string(data), `"intervals": [`) {
			t.Errorf("%s: %v, no intervals", n, err)
		}
	}
	if o := runGbench("-n", "-f", s, "--stage", "rate=5", testConninfo()); o.code != 1 || !strings.Contains(o.stderr, "a stage needs its length") {
		t.Errorf("no time: exit %d %s", o.code, o.stderr)
	}
}

// TestStagesRamp runs a stage whose rate ramps from 200 to 600 tps over
// 4 s, then one at 600 tps, against the server. Each -P interval of the
// ramp holds the ramp's integral over that interval, within 4.5 standard
// deviations of a Poisson count of that mean (by chance outside with
// probability below 1e-5) widened by what the run itself measured: an
// interval counts the transactions that ended in it, and one scheduled in
// it ends at most its lag plus its latency later, so the window can shift
// by the stage's largest lag plus largest latency, at the ramp's rate at
// the interval's end. The stage's total is checked the same way, and the
// stage after it reaches its rate.
func TestStagesRamp(t *testing.T) {
	needServer(t)
	s := writeScript(t, "select 1;\n")
	js := filepath.Join(t.TempDir(), "s.json")
	out := runGbench("-n", "-f", s, "-c", "2", "-P", "1", "--json", js,
		"--stage", "rate=200..600,time=4", "--stage", "rate=600,time=2", testConninfo())
	if out.code != 0 {
		t.Fatalf("exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	if !strings.Contains(out.stdout, "\nstage 1 (rate=200..600,time=4):\n") || !strings.Contains(out.stdout, "\nstage 2 (rate=600,time=2):\n") {
		t.Fatalf("no section per stage\n%s", out.stdout)
	}
	type stageResult struct {
		Config struct {
			Rate    float64 `json:"rate_tps"`
			RateEnd float64 `json:"rate_end_tps"`
		} `json:"config"`
		Counters struct{ Processed int64 } `json:"counters"`
		TPS      float64                   `json:"tps"`
		Lag      struct {
			MaxUs float64 `json:"max_us"`
		} `json:"lag"`
		Latency struct {
			MaxUs float64 `json:"max_us"`
		} `json:"latency"`
		Intervals []struct {
			ElapsedS float64                   `json:"elapsed_s"`
			LengthS  float64                   `json:"length_s"`
			Counters struct{ Processed int64 } `json:"counters"`
		} `json:"intervals"`
	}
	var r stageResult
	readJSONFile(t, filepath.Join(filepath.Dir(js), "s.stage1.json"), &r)
	if r.Config.Rate != 200 || r.Config.RateEnd != 600 || len(r.Intervals) < 3 {
		t.Fatalf("stage 1: rate %v..%v, %d intervals", r.Config.Rate, r.Config.RateEnd, len(r.Intervals))
	}
	shift := (r.Lag.MaxUs + r.Latency.MaxUs) / 1e6
	rate := func(at float64) float64 { return 200 + 100*min(at, 4) }
	integral := func(a, b float64) float64 { return 200*(b-a) + 50*(b*b-a*a) }
	check := func(what string, got int64, a, b float64) {
		m := integral(a, b)
		tol := 4.5*math.Sqrt(m) + rate(b)*shift
		t.Logf("%s [%.3f, %.3f] s: %d transactions, ramp's integral %.0f ± %.0f", what, a, b, got, m, tol)
		if math.Abs(float64(got)-m) > tol {
			t.Errorf("%s [%.3f, %.3f] s: %d transactions, the ramp's integral is %.0f ± %.0f", what, a, b, got, m, tol)
		}
	}
	for i, iv := range r.Intervals {
		check(fmt.Sprintf("interval %d", i+1), iv.Counters.Processed, iv.ElapsedS-iv.LengthS, min(iv.ElapsedS, 4))
	}
	check("stage 1", r.Counters.Processed, 0, 4)
	r = stageResult{}
	readJSONFile(t, filepath.Join(filepath.Dir(js), "s.stage2.json"), &r)
	// 1200 arrivals expected in 2 s: 4.5 standard deviations is 4.5*sqrt(1200)/2 tps.
	if r.Config.RateEnd != 0 || math.Abs(r.TPS-600) > 4.5*math.Sqrt(1200)/2+600*(r.Lag.MaxUs+r.Latency.MaxUs)/1e6/2 {
		t.Errorf("stage 2 ran at %.1f tps (rate end %v), given 600", r.TPS, r.Config.RateEnd)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--stage", "rate=0..100,time=2"}, "both rates above 0 tps"},
		{[]string{"--stage", "rate=10..x,time=2"}, "a ramp is rate=FROM..TO"},
		{[]string{"-t", "5", "--stage", "rate=10..20"}, "a stage needs its length"},
		{[]string{"--group", "a", "--stage", "rate=10,time=1"}, "--stage and --group cannot be used together: stages run one command line after another"},
	} {
		o := runGbench(append([]string{"-n", "-f", s, testConninfo()}, c.args...)...)
		if o.code != 1 || !strings.Contains(o.stderr, c.msg) {
			t.Errorf("%v: exit %d %s", c.args, o.code, o.stderr)
		}
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
