package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThresholdsOnARealServer runs a script whose latency pg_sleep makes
// certain (at least 20 ms) beside a fast one, with thresholds that it
// breaches or meets, over the run and per script.
func TestThresholdsOnARealServer(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.sql")
	fast := filepath.Join(dir, "fast.sql")
	os.WriteFile(slow, []byte("select pg_sleep(0.02);\n"), 0o644)
	os.WriteFile(fast, []byte("select 1;\n"), 0o644)
	// Every transaction fails: an SQL error under --continue-on-error.
	fails := filepath.Join(dir, "fails.sql")
	os.WriteFile(fails, []byte("select 1/0;\n"), 0o644)
	for _, c := range []struct {
		name      string
		args      []string
		code      int
		breached  []string // thresholds the summary says are breached
		met       []string
		stoppedAt bool // --threshold-abort stopped the run
	}{
		// The slow script's latency is above 5 ms: breached, exit 3.
		{name: "breached", args: []string{"-f", slow, "-t", "5", "--threshold", "p99<=5ms,failures<=0.1%"},
			code: 3, breached: []string{"p99<=5ms"}, met: []string{"failures<=0.1%"}},
		// Bounds it meets: exit 0.
		{name: "met", args: []string{"-f", slow, "-t", "5", "--threshold", "p50>=20ms,max<5s", "--threshold", "tps>0"},
			code: 0, met: []string{"p50>=20ms", "max<5s", "tps>0"}},
		// Per script, by base name, name without .sql and number: the slow
		// one breaches, the fast one meets the same bound.
		{name: "per script", args: []string{"-f", slow, "-f", fast, "-t", "20", "--random-seed", "3",
			"--threshold", "slow:p50<=10ms,fast.sql:p50<=10ms,2:max<=1s"},
			code: 3, breached: []string{"slow:p50<=10ms"}, met: []string{"fast.sql:p50<=10ms", "2:max<=1s"}},
		// The mean latency, under both names: above 20 ms, below a second.
		{name: "mean", args: []string{"-f", slow, "-t", "5", "--threshold", "avg>=20ms,mean<=1s,stddev<1s"},
			code: 0, met: []string{"avg>=20ms", "mean<=1s", "stddev<1s"}},
		// The schedule lag under --rate: a closed-loop run has none, which
		// breaches; at 20 tps on 1 client a 20 ms transaction lags.
		{name: "lag", args: []string{"-f", slow, "-t", "20", "-R", "20", "--random-seed", "5", "--threshold", "lag<1s,lag<=0.001us"},
			code: 3, met: []string{"lag<1s"}, breached: []string{"lag<=0.001us"}},
		// A script whose transactions all fail breaches a share and a
		// count, and meets a count it reaches.
		{name: "failures", args: []string{"-f", fails, "-t", "5", "--continue-on-error", "--threshold", "failures<=0.1%,failures<=0,failures>=5"},
			code: 3, breached: []string{"failures<=0.1%", "failures<=0"}, met: []string{"failures>=5"}},
		// --threshold-abort stops a 60 s run at the first check after 1 s.
		{name: "abort", args: []string{"-f", slow, "-T", "60", "--threshold", "p99<=5ms", "--threshold-abort=1"},
			code: 3, breached: []string{"p99<=5ms"}, stoppedAt: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			args := append(append([]string{"-n", "--json", js}, c.args...), testConninfo())
			out := runGbench(args...)
			if out.code != c.code {
				t.Fatalf("exit %d, want %d\n%s%s", out.code, c.code, out.stdout, out.stderr)
			}
			for _, b := range c.breached {
				if !strings.Contains(out.stdout, " - "+b+": ") || !strings.Contains(out.stdout, b+": ") {
					t.Errorf("summary does not name %s\n%s", b, out.stdout)
				}
				if line := lineWith(out.stdout, " - "+b+": "); !strings.HasSuffix(line, "(BREACHED)") {
					t.Errorf("%s: %q", b, line)
				}
			}
			for _, m := range c.met {
				if line := lineWith(out.stdout, " - "+m+": "); !strings.HasSuffix(line, "(met)") {
					t.Errorf("%s: %q", m, line)
				}
			}
			var r struct {
				Thresholds struct {
					Breached   bool `json:"breached"`
					ExitStatus int  `json:"exit_status"`
					Verdicts   []struct {
						Threshold string   `json:"threshold"`
						Value     *float64 `json:"value"`
						Met       bool     `json:"met"`
					} `json:"verdicts"`
					Stop *struct {
						AtS float64 `json:"at_s"`
					} `json:"stop"`
				} `json:"thresholds"`
				Durations struct {
					BenchS float64 `json:"bench_s"`
				} `json:"durations"`
			}
			data, err := os.ReadFile(js)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			g := r.Thresholds
			if g.ExitStatus != c.code || g.Breached != (c.code == 3) || len(g.Verdicts) != len(c.breached)+len(c.met) {
				t.Errorf("JSON thresholds %+v", g)
			}
			for _, v := range g.Verdicts {
				if v.Value == nil {
					t.Errorf("%s: no value", v.Threshold)
				}
			}
			if c.stoppedAt != (g.Stop != nil) {
				t.Errorf("stop %+v", g.Stop)
			}
			if c.stoppedAt && (r.Durations.BenchS > 10 || !strings.Contains(out.stderr, "stopped after")) {
				t.Errorf("ran %.1f s\n%s", r.Durations.BenchS, out.stderr)
			}
		})
	}
	// A closed loop has no schedule lag: a lag term is breached, with a
	// note and no value.
	out := runGbench("-n", "-f", slow, "-t", "2", "--threshold", "lag<1s", testConninfo())
	if line := lineWith(out.stdout, " - lag<1s: "); out.code != 3 || line != " - lag<1s: — (BREACHED: no schedule lag: a run without --rate, or no transaction completed)" {
		t.Errorf("no lag: exit %d, %q", out.code, line)
	}
}

// TestThresholdUsage: a bad threshold is a usage error (exit 1) whose
// message names the bad term, before any connection is made.
func TestThresholdUsage(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--threshold p99<=5ms,p99<=5", `invalid threshold "p99<=5" in "p99<=5ms,p99<=5": expected a term like`},
		{"--threshold avg<=0ms", `invalid threshold "avg<=0ms" in "avg<=0ms": the latency bound must be`},
		{"--threshold nope:p99<=5ms", `the threshold's script "nope" is not one of the run's scripts`},
		{"--threshold-abort=1", "--threshold-abort needs a --threshold"},
		{"--threshold lag<", `invalid threshold "lag<" in "lag<"`},
		{"--threshold p99<=1s --threshold-abort=soon", `invalid value "soon" for option --threshold-abort`},
	} {
		out := runGbench(append(strings.Fields(c.args), "-n", "-b", "select-only", "-t", "1", "host=127.0.0.1 port=1")...)
		if out.code != 1 || !strings.Contains(out.stderr, c.want) || strings.Contains(out.stderr, "connection") {
			t.Errorf("%s: exit %d, want 1 and %q\n%s", c.args, out.code, c.want, out.stderr)
		}
	}
}

// lineWith is the first line of s holding sub.
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// TestMergeThresholds checks thresholds against a merge of two runs of a
// pg_sleep script: the merged latency breaches a 5 ms bound, and the
// merged throughput (the sum of the runs') meets a lower one.
func TestMergeThresholds(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.sql")
	os.WriteFile(slow, []byte("select pg_sleep(0.02);\n"), 0o644)
	var inputs []string
	for _, n := range []string{"a.json", "b.json"} {
		p := filepath.Join(dir, n)
		if out := runGbench("-n", "-f", slow, "-t", "5", "--json", p, testConninfo()); out.code != 0 {
			t.Fatalf("run: %d\n%s", out.code, out.stderr)
		}
		inputs = append(inputs, p)
	}
	merged := filepath.Join(dir, "m.json")
	out := runGbench(append([]string{"merge", "-o", merged, "--threshold", "p99<=5ms,tps>=1,avg>=20ms,stddev<1s"}, inputs...)...)
	if out.code != 3 || !strings.HasSuffix(lineWith(out.stdout, " - p99<=5ms: "), "(BREACHED)") || !strings.HasSuffix(lineWith(out.stdout, " - tps>=1: "), "(met)") ||
		!strings.HasSuffix(lineWith(out.stdout, " - avg>=20ms: "), "(met)") || !strings.HasSuffix(lineWith(out.stdout, " - stddev<1s: "), "(met)") {
		t.Errorf("merge: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	data, _ := os.ReadFile(merged)
	if !strings.Contains(string(data), `"exit_status": 3`) {
		t.Errorf("merged JSON has no exit status 3")
	}
	if out := runGbench(append([]string{"merge", "-o", merged, "--threshold", "p99<=5s"}, inputs...)...); out.code != 0 {
		t.Errorf("merge met: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
}

// TestSLOFailBelow: gbench slo --fail-below exits with 3 when the
// objective holds nowhere (pg_sleep makes every transaction take 20 ms)
// and 0 when it holds up to a rate at or above the one required.
func TestSLOFailBelow(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.sql")
	os.WriteFile(slow, []byte("select pg_sleep(0.02);\n"), 0o644)
	for _, c := range []struct {
		slo, fail string
		code      int
	}{
		{"p99<=1ms", "--fail-below", 3},    // met nowhere
		{"p99<=1s", "--fail-below=5", 0},   // met everywhere up to 20 tps
		{"p99<=1s", "--fail-below=100", 3}, // ... which is below 100
	} {
		out := filepath.Join(dir, "slo.json")
		o := runGbench("slo", "--slo", c.slo, "--min-rate", "10", "--max-rate", "20", "--repeats", "1", "--warmup", "0", "--max-runs", "6",
			"-o", out, c.fail, "--", "-n", "-f", slow, "-T", "1", testConninfo())
		if o.code != c.code {
			t.Errorf("%s %s: exit %d, want %d\n%s", c.slo, c.fail, o.code, c.code, lastLines(o.stderr, 4))
		}
		data, _ := os.ReadFile(out)
		if has := strings.Contains(string(data), `"exit_status": 3`); has != (c.code == 3) || !strings.Contains(string(data), `"fail_below_tps"`) {
			t.Errorf("%s %s: JSON exit_status/fail_below_tps wrong: %.300s", c.slo, c.fail, data[max(0, strings.Index(string(data), `"slo"`)):])
		}
	}
}

// TestCurveThresholds checks each point of a curve of a pg_sleep script:
// a bound every point meets exits 0, one they breach exits 3, and the
// verdicts are in the curve's JSON.
func TestCurveThresholds(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow.sql")
	os.WriteFile(slow, []byte("select pg_sleep(0.02);\n"), 0o644)
	for _, c := range []struct {
		threshold string
		code      int
	}{{"p50>=10ms", 0}, {"p50<=5ms", 3}} {
		out := filepath.Join(dir, "curve.json")
		o := runGbench("curve", "--clients", "1,2", "--repeats", "1", "--warmup", "0", "-o", out, "--threshold", c.threshold,
			"--", "-n", "-f", slow, "-T", "1", testConninfo())
		if o.code != c.code || !strings.Contains(o.stdout, "thresholds at c=2:\n - "+c.threshold+": ") {
			t.Errorf("%s: exit %d, want %d\n%s", c.threshold, o.code, c.code, o.stdout)
		}
		data, _ := os.ReadFile(out)
		if !strings.Contains(string(data), `"thresholds": [`) {
			t.Errorf("%s: no thresholds in the JSON", c.threshold)
		}
	}
	if o := runGbench("curve", "--threshold", "a:p99<=1ms", "--", "-n", "-f", slow, testConninfo()); o.code != 1 || !strings.Contains(o.stderr, "no per-script figures") {
		t.Errorf("script term: exit %d %s", o.code, o.stderr)
	}
}

// TestABThresholds compares a fast script (A) with one whose pg_sleep
// makes every transaction take at least 20 ms (B): a bound both sides
// meet exits 0, one B breaches exits 3 with the verdicts of both sides in
// the JSON, and --max-regression on p50 (B's is at least 20 ms, A's far
// below: more than 50% worse on any machine) exits 3 too.
func TestABThresholds(t *testing.T) {
	needServer(t)
	dir := t.TempDir()
	fast, slow := filepath.Join(dir, "fast.sql"), filepath.Join(dir, "slow.sql")
	os.WriteFile(fast, []byte("select 1;\n"), 0o644)
	os.WriteFile(slow, []byte("select pg_sleep(0.02);\n"), 0o644)
	for _, c := range []struct {
		flags []string
		code  int
		want  string
	}{
		{[]string{"--threshold", "p50>=1us"}, 0, "thresholds at B c=1:\n - p50>=1us: "},
		{[]string{"--threshold", "p50<=10ms"}, 3, "thresholds at B c=1:\n - p50<=10ms: "},
		{[]string{"--metric", "p50", "--max-regression", "50"}, 3, "max regression 50%: BREACHED (B is "},
	} {
		out := filepath.Join(dir, "ab.json")
		args := append(append([]string{"ab", "--repeats", "1", "--warmup", "0", "-o", out}, c.flags...),
			"--", "-n", "-f", fast, "-T", "1", testConninfo(), "--vs", "-n", "-f", slow, "-T", "1", testConninfo())
		o := runGbench(args...)
		if o.code != c.code || !strings.Contains(o.stdout, c.want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s%s", c.flags, o.code, c.code, c.want, o.stdout, o.stderr)
		}
		data, _ := os.ReadFile(out)
		if c.flags[0] == "--threshold" && !strings.Contains(string(data), `"thresholds": [`) {
			t.Errorf("%v: no thresholds in the JSON", c.flags)
		}
		if c.flags[0] == "--metric" && !strings.Contains(string(data), `"regressed": true`) {
			t.Errorf("%v: no regression in the JSON", c.flags)
		}
	}
}
