package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// initCase is one gbench -i run compared with pgbench -i.
type initCase struct {
	name  string
	args  []string
	scale int // the accounts, branches and tellers expected
}

// initCases run in order on the same two databases, so that the first
// sees no tables (pgbench's NOTICEs for the drops) and the others replace
// them.
var initCases = []initCase{
	{name: "scale 3", args: []string{"-i", "-s", "3"}, scale: 3},
	{name: "steps dtg", args: []string{"-i", "-I", "dtg"}, scale: 1},          // no vacuum, no keys
	{name: "partitions", args: []string{"-i", "--partitions", "2"}, scale: 1}, // range by default
	{name: "server-side hash", args: []string{"-i", "-q", "-I", "dtGvpf", "--partitions", "3", "--partition-method", "hash", "--unlogged-tables"}, scale: 1},
}

// initFingerprint describes what -i built: row counts, partitioning,
// indexes, foreign keys and the tables' persistence.
const initFingerprint = `select
 (select count(*) from pgbench_accounts),
 (select count(*) from pgbench_branches),
 (select count(*) from pgbench_tellers),
 (select count(*) from pgbench_history),
 (select count(*) from pg_inherits i join pg_class c on c.oid = i.inhparent where c.relname = 'pgbench_accounts'),
 (select coalesce(string_agg(p.partstrat::text, ','), '') from pg_partitioned_table p join pg_class c on c.oid = p.partrelid where c.relname = 'pgbench_accounts'),
 (select coalesce(string_agg(indexname, ',' order by indexname), '') from pg_indexes where tablename like 'pgbench%'),
 (select coalesce(string_agg(conname, ',' order by conname), '') from pg_constraint where contype = 'f' and conrelid::regclass::text like 'pgbench%'),
 (select string_agg(relname || ':' || relpersistence::text, ',' order by relname) from pg_class where relname like 'pgbench%' and relkind in ('r', 'p'))`

// TestInitMatchesPgbench runs gbench -i and pgbench -i with the same
// options on two scratch databases and compares what they built and what
// they printed (in form: numbers and timings aside).
func TestInitMatchesPgbench(t *testing.T) {
	cfg := needServer(t)
	pg := needPgbench(t)
	gdb, pdb := scratchDB(t, cfg, "init_g"), scratchDB(t, cfg, "init_p")
	for _, c := range initCases {
		t.Run(c.name, func(t *testing.T) {
			var p outcome
			var wg sync.WaitGroup
			wg.Go(func() { p = execPgbench(t, pg, append(c.args, pdb)...) })
			g := runGbench(append(c.args, gdb)...)
			wg.Wait()
			if g.code != 0 {
				t.Fatalf("gbench exit status %d\n%s", g.code, g.stderr)
			}
			gf := fingerprint(t, gdb)
			want := fmt.Sprintf("%d|%d|%d|0", 100000*c.scale, c.scale, 10*c.scale)
			if !strings.HasPrefix(gf, want+"|") {
				t.Errorf("gbench built %s, want row counts %s", gf, want)
			}
			if p.code != 0 {
				t.Fatalf("pgbench exit status %d\n%s", p.code, p.stderr)
			}
			if pf := fingerprint(t, pdb); pf != gf {
				t.Errorf("databases differ\npgbench: %s\ngbench:  %s", pf, gf)
			}
			var pe []string
			for _, l := range lines(p.stderr) {
				pe = append(pe, asGbench(l))
			}
			compareForms(t, "stderr", pe, lines(g.stderr))
			if g.stdout != "" || p.stdout != "" {
				t.Errorf("output on stdout\npgbench: %q\ngbench: %q", p.stdout, g.stdout)
			}
		})
	}
}

// fingerprint runs initFingerprint on the database conninfo names.
func fingerprint(t *testing.T, conninfo string) string {
	t.Helper()
	rows, err := query(dbConfig(t, conninfo), initFingerprint)
	if err != nil {
		t.Fatalf("fingerprint: %v", err)
	}
	return strings.Join(rows[0], "|")
}
