package main

import (
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
	out = runGbench("-n", "-T", "1", "-l", testConninfo(), "--group", "w", "-f", writers)
	if out.code != 1 || !strings.Contains(out.stderr, `group "w": -l writes one run's logs`) {
		t.Errorf("-l: exit %d %s", out.code, out.stderr)
	}
	// --json writes one result per group, named after it.
	js := filepath.Join(t.TempDir(), "r.json")
	out = runGbench("-n", "-T", "1", "--json", js, testConninfo(), "--group", "w", "-f", writers, "--group", "r", "-f", readers)
	for _, n := range []string{"r.w.json", "r.r.json"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(js), n)); out.code != 0 || err != nil {
			t.Errorf("--json: exit %d, %s: %v", out.code, n, err)
		}
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
