package pgsql

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gbench/gbench/internal/testsrv"
)

// Helpers for the tests of Init that need a real PostgreSQL and, for the
// comparisons, a real pgbench. Names start with "initTest" so that they do
// not collide with the helpers of other files of the package.

// initTestConfig parses the shared server's connection string, once
// testsrv.NeedPostgres says the server is up.
func initTestConfig(tb testing.TB) *pgconn.Config {
	tb.Helper()
	cfg, err := pgconn.ParseConfig(testsrv.NeedPostgres(tb))
	if err != nil {
		tb.Fatalf("GBENCH_TEST_PG: %v", err)
	}
	return cfg
}

// initTestConnect opens a connection to database db whose notices go to
// notices (nil: dropped). It is closed when the test ends.
func initTestConnect(tb testing.TB, cfg *pgconn.Config, db string, notices *bytes.Buffer) *pgconn.PgConn {
	tb.Helper()
	c := cfg.Copy()
	c.Database = db
	c.OnNotice = nil
	if notices != nil {
		c.OnNotice = noticeWriter(notices)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, c)
	if err != nil {
		tb.Fatalf("connect to %s: %v", db, err)
	}
	tb.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// initTestExec runs sql and returns its rows, each row's columns joined by
// " | ".
func initTestExec(tb testing.TB, conn *pgconn.PgConn, sql string) []string {
	tb.Helper()
	results, err := conn.Exec(context.Background(), sql).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", sql, err)
	}
	var rows []string
	for _, r := range results {
		for _, row := range r.Rows {
			cols := make([]string, len(row))
			for i, v := range row {
				cols[i] = string(v)
			}
			rows = append(rows, strings.Join(cols, " | "))
		}
	}
	return rows
}

// initTestScratchDB creates an empty database with a name unique to this
// process and drops it when the test ends.
func initTestScratchDB(tb testing.TB, cfg *pgconn.Config, suffix string) string {
	tb.Helper()
	name := fmt.Sprintf("gbench_init_%d_%s", os.Getpid(), suffix)
	admin := initTestConnect(tb, cfg, cfg.Database, nil)
	drop := "drop database if exists " + name + " with (force)"
	initTestExec(tb, admin, drop)
	initTestExec(tb, admin, "create database "+name)
	tb.Cleanup(func() {
		admin := initTestConnect(tb, cfg, cfg.Database, nil)
		initTestExec(tb, admin, drop)
	})
	return name
}

// initTestPgbench returns the path of the reference pgbench 15 (see
// testsrv.NeedPgbench15).
func initTestPgbench(tb testing.TB) string {
	tb.Helper()
	return testsrv.NeedPgbench15(tb)
}

// initTestPgbenchCmd builds "pgbench -i <args> <connection> db". The
// connection options come from cfg; the password, if any, goes through
// PGPASSWORD so that it does not show in the process list.
func initTestPgbenchCmd(pgbench string, cfg *pgconn.Config, db string, args ...string) *exec.Cmd {
	all := append([]string{"-i"}, args...)
	all = append(all, "-h", cfg.Host, "-p", fmt.Sprint(cfg.Port), "-U", cfg.User, db)
	cmd := exec.Command(pgbench, all...)
	cmd.Env = os.Environ()
	if cfg.Password != "" {
		cmd.Env = append(cmd.Env, "PGPASSWORD="+cfg.Password)
	}
	return cmd
}

// initTestRunPgbench runs pgbench -i and returns its output and whether it
// succeeded; err is for a pgbench that could not be started. The output is
// stderr and stdout together: pgbench -i writes nothing to stdout, but
// script(1) does. It may run on any goroutine.
func initTestRunPgbench(cmd *exec.Cmd) (output string, ok bool, err error) {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		return "", false, fmt.Errorf("run %v: %w", cmd.Args, err)
	}
	return buf.String(), err == nil, nil
}

// initTestRunOurs runs Init on a fresh connection to db and returns what
// pgbench would have written to stderr: the log and the notices
// interleaved, and for an InitError the two "pgbench: " lines.
func initTestRunOurs(tb testing.TB, cfg *pgconn.Config, db string, o InitOptions, tty bool) (string, error) {
	tb.Helper()
	var stderr bytes.Buffer
	conn := initTestConnect(tb, cfg, db, &stderr)
	err := Init(context.Background(), &Client{pc: conn}, o, &stderr, tty)
	if qe, ok := err.(*InitError); ok {
		fmt.Fprintf(&stderr, "pgbench: error: query failed: %s\npgbench: detail: Query was: %s\n", qe.Message(), qe.SQL)
	}
	return stderr.String(), err
}
