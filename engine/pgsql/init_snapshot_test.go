package pgsql

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// initSnapshotQueries describe what pgbench -i leaves in a database, one
// labelled query each; rows are compared as text.
var initSnapshotQueries = []struct{ label, sql string }{
	{"relation", `select c.relname, c.relkind, c.relpersistence,
		coalesce(array_to_string(c.reloptions, ','), ''), coalesce(ts.spcname, ''),
		coalesce(pg_get_partkeydef(c.oid), ''), coalesce(pg_get_expr(c.relpartbound, c.oid), '')
		from pg_class c join pg_namespace n on n.oid = c.relnamespace
		left join pg_tablespace ts on ts.oid = c.reltablespace
		where n.nspname = 'public' order by c.relname`},
	{"column", `select a.attrelid::regclass::text, a.attnum, a.attname,
		format_type(a.atttypid, a.atttypmod), a.attnotnull, coalesce(pg_get_expr(d.adbin, d.adrelid), '')
		from pg_attribute a join pg_class c on c.oid = a.attrelid
		join pg_namespace n on n.oid = c.relnamespace
		left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
		where n.nspname = 'public' and a.attnum > 0 and not a.attisdropped order by 1, 2`},
	{"constraint", `select conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid)
		from pg_constraint where connamespace = 'public'::regnamespace order by 1, 2`},
	{"index", `select i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
		from pg_index i join pg_class c on c.oid = i.indexrelid
		join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' order by 1`},
	// vacuum_count and analyze_count count manual runs only, not autovacuum.
	{"vacuumed", `select relname, vacuum_count > 0, analyze_count > 0
		from pg_stat_user_tables where schemaname = 'public' order by relname`},
}

// initSnapshotTables are the tables whose rows are counted and checksummed.
var initSnapshotTables = []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"}

// initChecksumSQL counts the rows of a table and adds up a hash of each
// row's text: order-independent, so no sort of a large table is needed.
const initChecksumSQL = "select count(*), coalesce(sum(hashtext(t::text)::bigint), 0) from %s t"

// initSnapshot describes the pgbench tables of the database behind conn,
// one line per fact.
func initSnapshot(tb testing.TB, conn *pgconn.PgConn) []string {
	tb.Helper()
	var lines []string
	for _, q := range initSnapshotQueries {
		for _, row := range initTestExec(tb, conn, q.sql) {
			lines = append(lines, q.label+": "+row)
		}
	}
	for _, table := range initSnapshotTables {
		exists := initTestExec(tb, conn, "select to_regclass('"+table+"') is not null")
		if exists[0] != "t" {
			continue
		}
		for _, row := range initTestExec(tb, conn, fmt.Sprintf(initChecksumSQL, table)) {
			lines = append(lines, "content "+table+": "+row)
		}
	}
	if initTestExec(tb, conn, "select to_regclass('pgbench_accounts') is not null")[0] == "t" {
		sql := "select tableoid::regclass::text, count(*) from pgbench_accounts group by 1 order by 1"
		for _, row := range initTestExec(tb, conn, sql) {
			lines = append(lines, "rows per partition: "+row)
		}
	}
	return lines
}

// initTestDiff reports the lines that differ between pgbench's want and
// our got, with their position.
func initTestDiff(tb testing.TB, what string, want, got []string) {
	tb.Helper()
	n := max(len(want), len(got))
	bad := 0
	for i := range n {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			tb.Errorf("%s line %d:\npgbench: %q\ngbench:  %q", what, i+1, w, g)
			if bad++; bad == 5 {
				tb.Errorf("%s: stopping after 5 differences", what)
				return
			}
		}
	}
}

// initTimings matches the timing numbers of the log ("0.25 s").
var initTimings = regexp.MustCompile(`[0-9]+\.[0-9]{2} s\b`)

// initLogLines normalises a stderr log for comparison: timings become
// "T s", and the log is split after each '\n' or '\r', keeping the ending
// so that it is compared too.
func initLogLines(log string) []string {
	log = initTimings.ReplaceAllString(log, "T s")
	var lines []string
	for log != "" {
		i := strings.IndexAny(log, "\r\n") + 1
		if i == 0 {
			i = len(log)
		}
		lines = append(lines, log[:i])
		log = log[i:]
	}
	return lines
}
