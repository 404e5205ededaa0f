package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gbench/gbench/workloads"
)

// shortened are options that make each bundled plan a matter of seconds:
// fewer cells, shorter samples, one repeat, no warm-up.
var shortened = map[string][]string{
	"read":     {"--keys-per-request", "1,16", "-c", "2", "-T", "0.3"},
	"mixed":    {"--keys-per-request", "1,16", "-c", "4", "--requests", "400"},
	"coldfill": {"-c", "8", "-T", "1.2"},
	"writes":   {"-c", "2,4", "-T", "0.3"},
	"unlogged": {"-c", "4", "-T", "0.3", "--rates", "0,2000"},
	"ycsb":     {"-c", "2", "-T", "0.3"},
	"sessions": {"-c", "4", "-T", "0.3"},
}

// reportHas is what each bundled plan's report must show.
var reportHas = map[string][]string{
	"read":     {"### 16 keys per request", "| connections | sql-any | sql-mget | resp-mget |", "## Ratios"},
	"mixed":    {"| mix | keys | sql-any | sql-mget | resp-mget |", "| warm reads | 1 |", "| 5% updates | 16 |", "(read 95, write 5)"},
	"coldfill": {"## Over time", "| end s | sql-unlogged req/s | hit rate | cached | resp-cache-aside req/s | hit rate | cached |", "![Hit rate over time](hits-over-time.svg)"},
	"writes":   {"| connections | sql-update | resp-write-through |", "other server CPU µs/req"},
	"sessions": {"| mix | sql-unlogged | sql-logged | resp |", "| get |", "| set |", "| mixed |", "## Hit rate obtained", "| set | — | — | — |"},
	"unlogged": {"| mix | rate | sql-unlogged | sql-logged | resp |", "| get | unthrottled |", "| set | 2,000 req/s |", "| mixed | 2,000 req/s |"},
	"ycsb":     {"| mix | sql | sql-unlogged | resp |", "| A |", "| F |"},
}

// TestBundledPlansRun runs every bundled plan, shortened, with one
// command each on existing servers (a sandbox started here, loaded by the
// first run with --load; the plans that write come last, as their
// writes make the read paths' values differ), then its report; then a
// plan file with a path the user wrote in a file beside it; then compares
// two results.
func TestBundledPlansRun(t *testing.T) {
	sb := startSandbox(t)
	dir := t.TempDir()
	servers := []string{"--pg", sb.PostgresConnString(), "--resp", sb.RedisURL(), "--repeats", "1", "--warmup", "0"}
	if got := workloads.Plans(); len(got) != len(shortened) {
		t.Fatalf("bundled plans %v: shorten each", got)
	}
	for i, name := range []string{"read", "mixed", "writes", "unlogged", "sessions", "ycsb", "coldfill"} {
		out := filepath.Join(dir, name+".json")
		args := append(append([]string{"matrix", "--plan", name, "-o", out}, servers...), shortened[name]...)
		if i == 0 {
			args = append(args, "--load")
		}
		if o := runGbench(args...); o.code != exitOK {
			t.Fatalf("gbench %s: exit %d\n%s", strings.Join(args, " "), o.code, o.stderr)
		}
		r := readMatrixFile(t, out)
		if r.Plan.Name != name || r.FailedSamples != 0 || r.Partial || len(r.Samples) != r.Plan.Planned() {
			t.Errorf("%s: plan %q, %d failed, partial %v, %d samples of %d", name, r.Plan.Name, r.FailedSamples, r.Partial, len(r.Samples), r.Plan.Planned())
		}
		rep := runGbench("report", out, "-o", filepath.Join(dir, name))
		if rep.code != exitOK {
			t.Fatalf("gbench report %s: exit %d\n%s", out, rep.code, rep.stderr)
		}
		md, err := os.ReadFile(filepath.Join(dir, name, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range append(reportHas[name], "plan "+name) {
			if !strings.Contains(string(md), want) {
				t.Errorf("%s: report.md has no %q:\n%s", name, want, md)
			}
		}
		if name == "coldfill" {
			checkColdFill(t, out)
		}
		if name == "sessions" {
			// Every sample that gets records the reads it counted; sets
			// count none.
			for _, s := range r.Samples {
				if (s.Reads != nil) != (s.Mix != "set") {
					t.Errorf("sessions %s %s: reads %+v", s.Path, s.Mix, s.Reads)
				}
			}
		}
		for _, s := range r.Samples {
			// A Poisson schedule of 2000/s for 0.3 s sends 600 requests, with
			// a standard deviation of 25: 2600/s is over 7 of them away.
			if s.Rate == 2000 && s.ReqS > 2600 {
				t.Errorf("%s %s: %.0f req/s under --rate 2000", name, s.Mix, s.ReqS)
			}
		}
		if name == "read" {
			// Before the writes: a plan of the user's, and a second result of
			// the read plan to compare with the first.
			t.Run("user path", func(t *testing.T) { userPlanRun(t, sb.PostgresConnString(), dir) })
			args := append(append([]string{"matrix", "-o", filepath.Join(dir, "read2.json")}, servers...), shortened["read"]...)
			if o := runGbench(args...); o.code != exitOK {
				t.Fatalf("gbench matrix: exit %d\n%s", o.code, o.stderr)
			}
		}
	}

	// Two results of the same plan compare; results of different plans do
	// not, and the refusal names the field.
	again := filepath.Join(dir, "read2.json")
	cmp := runGbench("report", "--compare", filepath.Join(dir, "read.json"), again)
	if cmp.code != exitOK || !strings.Contains(cmp.stdout, "| keys | path | before | after | after / before | ranges |") ||
		!strings.Contains(cmp.stdout, "| 16 | sql-mget |") || !strings.Contains(cmp.stdout, "cells apart") {
		t.Errorf("compare: exit %d\n%s\n%s", cmp.code, cmp.stdout, cmp.stderr)
	}
	cmp = runGbench("report", "--compare", filepath.Join(dir, "read.json"), filepath.Join(dir, "writes.json"))
	if cmp.code != exitUsage || !strings.Contains(cmp.stderr, "measured different plans or data, so their cells cannot be compared: plan.paths: 3 against 2") {
		t.Errorf("compare of different plans: exit %d\n%s", cmp.code, cmp.stderr)
	}
}

// checkColdFill checks the series of the cold fill: every sample starts
// with an empty cache and fills it.
func checkColdFill(t *testing.T, path string) {
	t.Helper()
	r := readMatrixFile(t, path)
	for _, s := range r.Samples {
		// A sample of 1.2 s has two half-second boundaries. A reporter that
		// comes late to one reports one longer interval, as pgbench does:
		// in CI under -race, with the sample's servers and another test
		// package on two cores, the first report came after 1 s. So the
		// count is not asserted, only that no report is early.
		if len(s.Intervals) < 1 || s.CachedStart == nil {
			t.Errorf("%s: %d intervals, cached start %v", s.Path, len(s.Intervals), s.CachedStart)
			continue
		}
		for i, in := range s.Intervals {
			if boundary := r.Plan.IntervalS * float64(i+1); r.Plan.IntervalS <= 0 || in.EndS < boundary {
				t.Errorf("%s: interval %d ends at %.3f s, before the boundary at %.1f s (interval %v s)", s.Path, i, in.EndS, boundary, r.Plan.IntervalS)
			}
		}
		last := s.Intervals[len(s.Intervals)-1]
		if last.Cached == nil || *last.Cached-*s.CachedStart <= 0 || *last.Cached-*s.CachedStart > int64(r.Plan.Items) {
			t.Errorf("%s: cache entries %v from %d: not filled from empty", s.Path, last.Cached, *s.CachedStart)
		}
	}
}

// userPlan is the worked example of docs/matrix.md: the user's read
// function beside gbench's sql-mget, the user's script in a file.
const userPlan = `title = "my_ext.mget against gbench.mget"
keys = [1, 16]
connections = [2]
duration_s = 0.3
repeats = 1
warmup_s = 0

[[paths]]
name = "sql-mget"
script = 'SELECT gbench.mget(:keys);'
contract = "json"

[[paths]]
name = "my-mget"
file = "my-mget.sql"
contract = "json"
`

// userPlanRun runs a plan file whose path reads a function of the user's
// (defined here) from a script file next to the plan, on PostgreSQL
// alone.
func userPlanRun(t *testing.T, conninfo, dir string) {
	sandboxSQL(t, conninfo, `CREATE SCHEMA IF NOT EXISTS my_ext;
CREATE OR REPLACE FUNCTION my_ext.mget(rel regclass, keys bigint[]) RETURNS text[] LANGUAGE plpgsql STABLE AS $f$
DECLARE out text[];
BEGIN
    EXECUTE format('SELECT ARRAY(SELECT t.v FROM unnest($1) WITH ORDINALITY AS k(id, ord) LEFT JOIN %s AS t ON t.id = k.id ORDER BY k.ord)', rel)
        INTO out USING keys;
    RETURN out;
END
$f$`)
	plans := filepath.Join(dir, "plans")
	if err := os.MkdirAll(plans, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"my-plan.toml": userPlan,
		"my-mget.sql":  "-- my-mget.sql: my extension's read\nSELECT array_to_json(my_ext.mget('gbench.items'::regclass, :keys));\n",
	} {
		if err := os.WriteFile(filepath.Join(plans, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "mine.json")
	o := runGbench("matrix", "--plan", filepath.Join(plans, "my-plan.toml"), "--pg", conninfo, "-o", out)
	if o.code != exitOK {
		t.Fatalf("gbench matrix --plan my-plan.toml: exit %d\n%s", o.code, o.stderr)
	}
	r := readMatrixFile(t, out)
	if !r.Contract.Passed || len(r.Samples) != 4 || r.FailedSamples != 0 || r.Plan.Paths[1].Scripts[0].Source != "my-mget.sql" {
		t.Errorf("contract %+v, %d samples (%d failed), path %+v", r.Contract, len(r.Samples), r.FailedSamples, r.Plan.Paths[1])
	}
	if rep := runGbench("report", out); rep.code != exitOK {
		t.Errorf("report: exit %d\n%s", rep.code, rep.stderr)
	}
}

// TestPlansCommands lists, shows and extracts the bundled plans.
func TestPlansCommands(t *testing.T) {
	o := runGbench("plans", "list")
	for _, want := range []string{"NAME      SAMPLES  EACH", "mixed     54       50000 requests  Warm reads vs a 5% update mix", "read      81       5 s"} {
		if o.code != exitOK || !strings.Contains(o.stdout, want) {
			t.Errorf("plans list: exit %d, no %q:\n%s%s", o.code, want, o.stdout, o.stderr)
		}
	}
	text, _ := workloads.PlanText("mixed")
	if o := runGbench("plans", "show", "mixed"); o.code != exitOK || o.stdout != string(text) {
		t.Errorf("plans show mixed: exit %d\n%s", o.code, o.stderr)
	}
	dir := t.TempDir()
	if o := runGbench("plans", "extract", dir); o.code != exitOK || !strings.Contains(o.stderr, "wrote 7 files") {
		t.Errorf("plans extract: exit %d\n%s", o.code, o.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "read.toml"), []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := runGbench("plans", "extract", dir); o.code != exitUsage || !strings.Contains(o.stderr, "read.toml differs from the bundled copy (edited?); nothing was written") {
		t.Errorf("plans extract over an edited file: exit %d\n%s", o.code, o.stderr)
	}
	for _, c := range []struct{ args, want string }{
		{"plans", "missing command: list, show or extract"},
		{"plans run", `unknown command "run" of gbench plans`},
		{"plans show nope", `no bundled plan "nope"`},
	} {
		if o := runGbench(strings.Fields(c.args)...); o.code != exitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %q", c.args, o.code, o.stderr, c.want)
		}
	}
	// A plan file's errors name the file, the line and the column.
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("connections = [4]\nrepeat = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := runGbench("matrix", "--plan", bad); o.code != exitUsage || !strings.Contains(o.stderr, bad+`:2:1: unknown key "repeat"`) {
		t.Errorf("matrix --plan bad.toml: exit %d\n%s", o.code, o.stderr)
	}
}
