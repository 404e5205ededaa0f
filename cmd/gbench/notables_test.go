package main

import "testing"

// TestNoTablesErrorMatchesPgbench runs a builtin script where the pgbench
// tables are missing: the error has the server's LINE and caret lines and
// the hint names the database used, also when the connection string names
// none (libpq then takes the user name), as pgbench 15 prints them.
func TestNoTablesErrorMatchesPgbench(t *testing.T) {
	cfg := needServer(t)
	pg := needPgbench(t)
	db := scratchDB(t, cfg, "notables")
	conns := []string{
		db, // a database named
		"host=" + cfg.Host + " port=" + itoa(int64(cfg.Port)) + " user=postgres", // none: "postgres", the user's
	}
	if rows, err := query(dbConfig(t, conns[1]+" dbname=postgres"), "select 1 from pg_tables where tablename = 'pgbench_branches'"); err != nil || len(rows) > 0 {
		conns = conns[:1] // someone initialized database postgres
	}
	for _, c := range conns {
		p := execPgbench(t, pg, "-t", "1", c)
		g := runGbench("-t", "1", c)
		if p.code != 1 || g.code != 1 {
			t.Errorf("%s: exit %d, pgbench %d", c, g.code, p.code)
		}
		if want := asGbenchAll(p.stderr); g.stderr != want {
			t.Errorf("%s: stderr\n%s\npgbench's\n%s", c, g.stderr, want)
		}
	}
}
