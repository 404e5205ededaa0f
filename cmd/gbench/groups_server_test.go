package main

import (
	"strings"
	"testing"
)

// TestGroupsOwnServer gives each group its own DBNAME and the second
// group -r: each script divides by zero unless it runs in its group's
// database, so a group sent to the other's server aborts the run (exit
// 2), and only the group with -r prints pgbench's per-command lines.
func TestGroupsOwnServer(t *testing.T) {
	needServer(t)
	base := testConninfo()
	if strings.Contains(base, "://") {
		t.Skip("GBENCH_TEST_PG is a URI; the test appends dbname= to a keyword string")
	}
	inPostgres := writeScript(t, "select 1/(current_database()='postgres')::int;\n")
	inTest := writeScript(t, "select 1/(current_database()='test')::int;\n")
	out := runGbench("-n", "-t", "5",
		"--group", "a", "-f", inPostgres, base+" dbname=postgres",
		"--group", "b", "-f", inTest, "-r", base+" dbname=test")
	if out.code != 0 {
		t.Fatalf("exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	a, b := strings.Index(out.stdout, "\ngroup a:\n"), strings.Index(out.stdout, "\ngroup b:\n")
	if a < 0 || b < a {
		t.Fatalf("no summary per group\n%s", out.stdout)
	}
	ga, gb := out.stdout[a:b], out.stdout[b:]
	for _, g := range []string{ga, gb} {
		if !strings.Contains(g, "number of transactions actually processed: 5/5\n") {
			t.Errorf("a group did not run its 5 transactions\n%s", g)
		}
	}
	if strings.Contains(ga, "statement latencies") || !strings.Contains(gb, "statement latencies in milliseconds and failures:\n") {
		t.Errorf("-r belongs to group b only\n%s", out.stdout)
	}
	if !strings.Contains(gb, "\nall groups: 10 transactions processed, 0 failed, 0 skipped; ") {
		t.Errorf("no totals\n%s", gb)
	}
	// The same groups with their servers swapped: both abort.
	out = runGbench("-n", "-t", "5",
		"--group", "a", "-f", inPostgres, base+" dbname=test",
		"--group", "b", "-f", inTest, base+" dbname=postgres")
	if out.code != 2 {
		t.Errorf("swapped servers: exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
}
