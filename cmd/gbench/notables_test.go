package main

import (
	"os"
	"strings"
	"testing"
)

// TestNoTablesErrorMatchesPgbench runs a builtin script where the pgbench
// tables are missing: the error has the server's LINE and caret lines and
// the hint names the database used, also when the connection string names
// none (libpq then takes PGDATABASE, else the user name), as pgbench 15
// prints them.
func TestNoTablesErrorMatchesPgbench(t *testing.T) {
	cfg := needServer(t)
	pg := needPgbench(t)
	db := scratchDB(t, cfg, "notables")
	name := db[strings.LastIndex(db, "gbench_cli_"):]
	if i := strings.IndexAny(name, " ?&'"); i >= 0 {
		name = name[:i]
	}
	hostPort := "host=" + cfg.Host + " port=" + itoa(int64(cfg.Port))
	cases := []struct {
		conn string
		env  [][2]string
	}{
		{conn: db}, // a database named
		{conn: "postgresql://postgres@" + cfg.Host + ":" + itoa(int64(cfg.Port)) + "/" + name + "?application_name=x"},
		{conn: hostPort + " user=postgres", env: [][2]string{{"PGDATABASE", name}}},
		{conn: hostPort + " user=postgres"}, // none: "postgres", the user's
	}
	if rows, err := query(dbConfig(t, hostPort+" user=postgres dbname=postgres"), "select 1 from pg_tables where tablename = 'pgbench_branches'"); err != nil || len(rows) > 0 {
		cases = cases[:len(cases)-1] // someone initialized database postgres
	}
	for _, c := range cases {
		for _, kv := range c.env {
			t.Setenv(kv[0], kv[1]) // pgconn reads PG* variables from the process
		}
		p := execPgbench(t, pg, "-t", "1", c.conn)
		g := runGbench("-t", "1", c.conn)
		for _, kv := range c.env {
			os.Unsetenv(kv[0])
		}
		if p.code != 1 || g.code != 1 {
			t.Errorf("%s %q: exit %d, pgbench %d\n%s", c.conn, c.env, g.code, p.code, p.stderr)
		}
		if !strings.Contains(p.stderr, "\nLINE 1: ") {
			t.Errorf("%s %q: pgbench printed no LINE 1:\n%s", c.conn, c.env, p.stderr)
		}
		if want := asGbenchAll(p.stderr); g.stderr != want {
			t.Errorf("%s %q: stderr\n%s\npgbench's\n%s", c.conn, c.env, g.stderr, want)
		}
	}
}
