package main

import (
	"strings"
	"testing"
)

// TestPgbenchOutput18 runs two scripts with --pgbench-output=18 and
// --latency-percentiles: the per-script sections take pgbench 18's
// layout (the golden files of output/report pin it line by line) and the
// bare percentile flag means 50,95,99.
func TestPgbenchOutput18(t *testing.T) {
	needServer(t)
	other := writeScript(t, "\\set x random(1, 5)\nSELECT :x;\n")
	out := runGbench("-n", "-f", "testdata/select1.sql", "-f", other, "-t", "10", "--random-seed", "3",
		"--pgbench-output=18", "--latency-percentiles", "-r", testConninfo())
	if out.code != 0 {
		t.Fatalf("exit %d\n%s", out.code, out.stderr)
	}
	for _, want := range []string{
		"\n - number of transactions actually processed: ",
		"\nlatency percentiles (ms): p50 = ",
		", p95 = ",
		"\n - statement latency percentiles in milliseconds (p50 p95 p99):\n",
	} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("no %q in\n%s", want, out.stdout)
		}
	}
	if strings.Contains(out.stdout, "% of total, tps = ") {
		t.Errorf("pgbench 15's per-script line in\n%s", out.stdout)
	}
	for _, c := range []struct{ args, err string }{
		{"--pgbench-output=17", `invalid value "17" for option --pgbench-output: expected 15 or 18`},
		{"--latency-percentiles=1,2,3,4,5,6,7,8,9,10,11", "at most 10"},
		{"--latency-percentiles=101", `invalid percentile "101"`},
	} {
		o := runGbench("-n", "-f", "testdata/select1.sql", "-t", "1", c.args, testConninfo())
		if o.code != 1 || !strings.Contains(o.stderr, c.err) {
			t.Errorf("%s: exit %d, %s", c.args, o.code, o.stderr)
		}
	}
}
