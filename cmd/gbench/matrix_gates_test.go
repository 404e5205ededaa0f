package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gatePlan has a path whose pg_sleep makes every request take at least
// 5 ms, with a threshold of its own it must breach (p99<=1ms), beside a
// fast path; the plan's threshold (no failures) applies to both.
const gatePlan = `connections = [1]
repeats = 1
duration_s = 1
warmup_s = 0
threshold = "failures<=0%"

[[paths]]
name = "slow"
script = 'SELECT pg_sleep(0.005);'
contract = "none"
threshold = "p99<=1ms"

[[paths]]
name = "fast"
script = 'SELECT 1;'
contract = "none"
`

// TestMatrixThresholds: a cell that breaches its path's threshold makes
// gbench matrix exit 3 after writing every sample; the JSON holds each
// cell's verdicts (the plan's, the path's and --threshold's), and the
// report marks the breached cell.
func TestMatrixThresholds(t *testing.T) {
	f := newMatrixFixture(t)
	dir := t.TempDir()
	plan := filepath.Join(dir, "gates.toml")
	if err := os.WriteFile(plan, []byte(gatePlan), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "m.json")
	o := runGbench("matrix", "--plan", plan, "--pg", f.pg, "--threshold", "tps>=1", "-o", out)
	if o.code != exitThreshold {
		t.Fatalf("exit %d, want %d\n%s", o.code, exitThreshold, o.stderr)
	}
	if !strings.Contains(o.stderr, "1 of 2 cells breached a threshold") || !strings.Contains(o.stderr, "  slow 1 connections: p99<=1ms (") {
		t.Errorf("no breach named:\n%s", o.stderr)
	}
	r := readMatrixFile(t, out)
	if len(r.Samples) != 2 || r.Partial || r.Plan.Threshold != "failures<=0%,tps>=1" || r.Plan.Paths[0].Threshold != "p99<=1ms" {
		t.Fatalf("%d samples, partial %v, thresholds %q %+v", len(r.Samples), r.Partial, r.Plan.Threshold, r.Plan.Paths)
	}
	got := map[string]string{}
	for _, g := range r.Thresholds {
		var vs []string
		for _, v := range g.Verdicts {
			vs = append(vs, v.Threshold+map[bool]string{true: " met", false: " breached"}[v.Met])
		}
		got[g.Path] = strings.Join(vs, ", ")
		if g.Breached != strings.Contains(got[g.Path], "breached") {
			t.Errorf("%s: breached %v with %s", g.Path, g.Breached, got[g.Path])
		}
	}
	// pg_sleep(0.005) takes at least 5 ms, so p99 is above 1 ms whatever
	// the machine; one request per second is far below what either path
	// does, even a slow one.
	if got["slow"] != "failures<=0% met, tps>=1 met, p99<=1ms breached" || got["fast"] != "failures<=0% met, tps>=1 met" {
		t.Errorf("verdicts %v", got)
	}
	rep := filepath.Join(dir, "rep")
	if o := runGbench("report", out, "-o", rep); o.code != exitOK {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}
	md, _ := os.ReadFile(filepath.Join(rep, "report.md"))
	if !strings.Contains(string(md), "**1 of 2 cells breached a threshold**") || !strings.Contains(string(md), "| **BREACHED** slow 1 connections | ") {
		t.Errorf("report:\n%s", md)
	}
	// A threshold a cell cannot check is refused before anything runs.
	for _, c := range []struct{ flag, msg string }{
		{"p95<=1ms", "a matrix sample keeps p50, p90, p99, p99.9 and max"},
		{"read:p99<=1ms", "a matrix cell keeps no per-script figures"},
		{"p99<=", "--threshold: invalid threshold"},
	} {
		if o := runGbench("matrix", "--plan", plan, "--pg", f.pg, "--threshold", c.flag, "-o", out); o.code != exitUsage || !strings.Contains(o.stderr, c.msg) {
			t.Errorf("--threshold %s: exit %d\n%s", c.flag, o.code, o.stderr)
		}
	}
}
