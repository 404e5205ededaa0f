package main

// Helpers for the tests that hold gbench's command line against real
// pgbench 15: running both, finding the reference pgbench, the test server
// and scratch databases, and turning pgbench's output into gbench's
// spelling.

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gbench/gbench/internal/testsrv"
)

// outcome is what one run of gbench or pgbench left behind.
type outcome struct {
	code           int
	stdout, stderr string
}

// lockedBuffer is a bytes.Buffer safe for the engine's threads and its
// progress goroutine, which all write to Stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runGbench runs gbench in-process with an empty standard input.
func runGbench(args ...string) outcome {
	var stdout, stderr lockedBuffer
	env := &Env{
		Stdin:  strings.NewReader(""),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: os.Getenv,
		Now:    time.Now,
	}
	code := Run(env, args)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// execPgbench runs the reference pgbench with the test's environment.
func execPgbench(t testing.TB, path string, args ...string) outcome {
	t.Helper()
	o := execPgbenchEnv(path, nil, args...)
	if o.code < 0 {
		t.Fatalf("running %s %q: %s", path, args, o.stderr)
	}
	return o
}

// execPgbenchEnv runs the reference pgbench with env added to the test's
// environment. It may be called from any goroutine: a failure to run
// pgbench at all gives exit status -1 and the reason as stderr.
func execPgbenchEnv(path string, env [][2]string, args ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin = strings.NewReader("")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if env != nil {
		cmd.Env = os.Environ()
		for _, kv := range env {
			cmd.Env = append(cmd.Env, kv[0]+"="+kv[1])
		}
	}
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			return outcome{code: -1, stderr: err.Error()}
		}
		code = ee.ExitCode()
	}
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// needPgbench returns the reference pgbench 15's path (see
// testsrv.NeedPgbench15): a side-by-side test is a comparison or a
// visible skip, a failure under GBENCH_REQUIRE_SERVICES=1.
func needPgbench(t testing.TB) string {
	t.Helper()
	return testsrv.NeedPgbench15(t)
}

var (
	reArgv0   = regexp.MustCompile(`^\S*/pgbench: `)
	rePgbench = regexp.MustCompile(`\bpgbench\b`)
)

// asGbench rewrites one line of pgbench's output as gbench would spell it:
// getopt's "/full/path/pgbench: " becomes "pgbench: ", then the program
// name becomes gbench ("pgbench: error:", "Try \"pgbench --help\"",
// "(\"pgbench -i\")"); table names such as pgbench_branches stay.
func asGbench(line string) string {
	line = reArgv0.ReplaceAllString(line, "pgbench: ")
	return rePgbench.ReplaceAllString(line, "gbench")
}

// asGbenchAll is asGbench applied to every line of s.
func asGbenchAll(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		b.WriteString(asGbench(l))
	}
	return b.String()
}

// lines splits output into lines without the final newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// firstLine is the first line of s, "" when s is empty.
func firstLine(s string) string {
	if l := lines(s); len(l) > 0 {
		return l[0]
	}
	return ""
}

var reNumber = regexp.MustCompile(`( {2,})?[0-9]+(\.[0-9]+)?`)

// form replaces every number in a line by N, so that lines of two runs
// compare in form only. Blanks that pad a number to a column's width (two
// or more) become one, as their count depends on the number's width: a
// latency of 14.850 ms has one blank less than one of 9.843 ms.
func form(line string) string {
	return reNumber.ReplaceAllStringFunc(line, func(m string) string {
		if m[0] == ' ' {
			return " N"
		}
		return "N"
	})
}

// testConninfo is the test server's connection string.
func testConninfo() string { return testsrv.PostgresConninfo() }

// needServer checks that the test server answers, skipping the test when
// it does not (failing it when GBENCH_REQUIRE_SERVICES=1).
func needServer(t testing.TB) *pgconn.Config {
	t.Helper()
	cfg, err := pgconn.ParseConfig(testsrv.NeedPostgres(t))
	if err != nil {
		t.Fatalf("GBENCH_TEST_PG: %v", err)
	}
	return cfg
}

// withDatabase returns the test conninfo pointing at database db; both
// gbench and pgbench accept it as their DBNAME argument.
func withDatabase(conninfo, db string) string {
	if strings.HasPrefix(conninfo, "postgres://") || strings.HasPrefix(conninfo, "postgresql://") {
		u, err := url.Parse(conninfo)
		if err == nil {
			u.Path = "/" + db
			return u.String()
		}
	}
	return conninfo + " dbname=" + db
}

// scratchDB creates an empty database for the test, dropped at its end,
// and returns the conninfo to reach it. The name carries the process id so
// that engineers running the suite at the same time do not collide.
func scratchDB(t testing.TB, cfg *pgconn.Config, name string) string {
	t.Helper()
	db := fmt.Sprintf("gbench_cli_%s_%d", name, os.Getpid())
	admin(t, cfg, "drop database if exists "+db+" with (force)")
	admin(t, cfg, "create database "+db)
	t.Cleanup(func() { admin(t, cfg, "drop database if exists "+db+" with (force)") })
	return withDatabase(testConninfo(), db)
}

// admin runs one statement on the test database.
func admin(t testing.TB, cfg *pgconn.Config, sql string) {
	t.Helper()
	if _, err := query(cfg, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// query runs sql on the database cfg names and returns the rows of its
// last result as text.
func query(cfg *pgconn.Config, sql string) ([][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	res, err := conn.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, r := range res[len(res)-1].Rows {
		var row []string
		for _, v := range r {
			row = append(row, string(v))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// dbConfig is cfg pointed at another database.
func dbConfig(t testing.TB, conninfo string) *pgconn.Config {
	t.Helper()
	cfg, err := pgconn.ParseConfig(conninfo)
	if err != nil {
		t.Fatalf("%s: %v", conninfo, err)
	}
	return cfg
}
