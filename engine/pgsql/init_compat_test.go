package pgsql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gbench/gbench/internal/testsrv"
)

// initCompatCase is one pgbench -i command line and the InitOptions the CLI
// makes of it.
type initCompatCase struct {
	name       string
	args       []string // pgbench's options after -i
	o          InitOptions
	tty        bool // run pgbench on a terminal (script(1)) and Init with tty
	tablespace bool // args and o name a scratch tablespace, "%TS%" in args
}

// initCompatCases run in order on the same two databases, so each starts
// from what the one before left.
var initCompatCases = []initCompatCase{
	// pgbench's defaults; on empty databases the drop logs four notices.
	{name: "default", args: []string{"-s", "2"},
		o: InitOptions{Steps: "dtgvp", Scale: 2, FillFactor: 100}},
	// On a terminal progress lines end in '\r' (v and p left out: they
	// print the same either way).
	{name: "tty", args: []string{"-s", "2", "-I", "dtg"}, tty: true,
		o: InitOptions{Steps: "dtg", Scale: 2, FillFactor: 100}},
	// -I dtGvp: server-side generation.
	{name: "server-side", args: []string{"-s", "1", "-I", "dtGvp"},
		o: InitOptions{Steps: "dtGvp", Scale: 1, FillFactor: 100}},
	// -q: one progress line, at the end, when generation takes under 5 s.
	{name: "quiet", args: []string{"-s", "1", "-q", "-I", "dtg"},
		o: InitOptions{Steps: "dtg", Scale: 1, FillFactor: 100, Quiet: true}},
	// --partitions 3: range by default, copy without freeze.
	{name: "range partitions", args: []string{"-s", "1", "--partitions", "3"},
		o: InitOptions{Steps: "dtgvp", Scale: 1, FillFactor: 100, Partitions: 3}},
	// --partition-method hash.
	{name: "hash partitions", args: []string{"-s", "1", "--partitions", "3", "--partition-method", "hash"},
		o: InitOptions{Steps: "dtgvp", Scale: 1, FillFactor: 100, Partitions: 3, PartitionMethod: "hash"}},
	// One range partition spans minvalue to maxvalue.
	{name: "one partition", args: []string{"-s", "1", "--partitions", "1", "-I", "dtg"},
		o: InitOptions{Steps: "dtg", Scale: 1, FillFactor: 100, Partitions: 1}},
	// --unlogged-tables, partitions included.
	{name: "unlogged", args: []string{"-s", "1", "--unlogged-tables", "--partitions", "2"},
		o: InitOptions{Steps: "dtgvp", Scale: 1, FillFactor: 100, Unlogged: true, Partitions: 2}},
	// -F 90 --foreign-keys: the CLI appends 'f'.
	{name: "fillfactor and foreign keys", args: []string{"-s", "1", "-F", "90", "--foreign-keys"},
		o: InitOptions{Steps: "dtgvpf", Scale: 1, FillFactor: 90}},
	// -n: the CLI removes 'v'.
	{name: "no vacuum", args: []string{"-s", "1", "-n"},
		o: InitOptions{Steps: "dtgp", Scale: 1, FillFactor: 100}},
	// Blanks in -I are skipped; g after existing foreign keys.
	{name: "blanks in steps", args: []string{"-s", "1", "-I", " g f "},
		o: InitOptions{Steps: " g f ", Scale: 1, FillFactor: 100}},
	// From scale 20000 aid is bigint (tables only: the data would be 2e9 rows).
	{name: "bigint aid", args: []string{"-s", "20000", "-I", "dt"},
		o: InitOptions{Steps: "dt", Scale: 20000, FillFactor: 100}},
	// Range bounds past 2^31, rounded up (tables only).
	{name: "big range bounds", args: []string{"-s", "30000", "-I", "dt", "--partitions", "7"},
		o: InitOptions{Steps: "dt", Scale: 30000, FillFactor: 100, Partitions: 7}},
	// The tables exist now: both fail with the same error.
	{name: "error", args: []string{"-I", "t"},
		o: InitOptions{Steps: "t", Scale: 1, FillFactor: 100}},
	// Tablespace names are quoted; partitions get none of their own.
	{name: "tablespaces", tablespace: true,
		args: []string{"-s", "1", "-I", "dtgp", "--tablespace", "%TS%", "--index-tablespace", "%TS%"},
		o:    InitOptions{Steps: "dtgp", Scale: 1, FillFactor: 100}},
	// Tablespace with partitioned accounts: pgbench's "cannot specify
	// default tablespace for partitioned relations" when it is the
	// database's default.
	{name: "default tablespace and partitions",
		args: []string{"-s", "1", "-I", "dt", "--partitions", "2", "--tablespace", "pg_default"},
		o:    InitOptions{Steps: "dt", Scale: 1, FillFactor: 100, Partitions: 2, Tablespace: "pg_default"}},
}

// TestInitMatchesPgbench runs real pgbench 15 and Init with the same options
// into two databases and compares their stderr line by line (timings
// normalised), their success, and the tables they leave: relations,
// columns, reloptions, persistence, partition bounds, constraints, indexes,
// vacuum status, row counts and a checksum of the rows.
func TestInitMatchesPgbench(t *testing.T) {
	cfg := initTestConfig(t)
	pgbench := initTestPgbench(t)
	refDB := initTestScratchDB(t, cfg, "pgbench")
	ourDB := initTestScratchDB(t, cfg, "gbench")
	for _, c := range initCompatCases {
		t.Run(c.name, func(t *testing.T) {
			if c.tablespace {
				c = initWithTablespace(t, cfg, c, refDB, ourDB)
			}
			// pgbench and Init run side by side on their own databases.
			cmd := initPgbenchCaseCmd(t, pgbench, cfg, refDB, c)
			type result struct {
				stderr string
				ok     bool
				err    error
			}
			ref := make(chan result, 1)
			go func() {
				stderr, ok, err := initTestRunPgbench(cmd)
				ref <- result{stderr, ok, err}
			}()
			got, err := initTestRunOurs(t, cfg, ourDB, c.o, c.tty)
			want := <-ref
			if want.err != nil {
				t.Fatal(want.err)
			}
			if c.tty {
				// The terminal turned each '\n' into "\r\n"; undo it once.
				want.stderr = strings.ReplaceAll(want.stderr, "\r\n", "\n")
			}
			if want.ok != (err == nil) {
				t.Errorf("pgbench succeeded: %v; Init returned %v", want.ok, err)
			}
			initTestDiff(t, "stderr", initLogLines(want.stderr), initLogLines(got))
			initTestDiff(t, "database",
				initSnapshot(t, initTestConnect(t, cfg, refDB, nil)),
				initSnapshot(t, initTestConnect(t, cfg, ourDB, nil)))
		})
	}
}

// initPgbenchCaseCmd is the pgbench command of c; with c.tty, it runs
// inside script(1) so that its stderr is a terminal, whose output script
// copies to its stdout.
func initPgbenchCaseCmd(t *testing.T, pgbench string, cfg *pgconn.Config, db string, c initCompatCase) *exec.Cmd {
	cmd := initTestPgbenchCmd(pgbench, cfg, db, c.args...)
	if !c.tty {
		return cmd
	}
	script := testsrv.NeedCommand(t, "script", "util-linux; it runs pgbench on a terminal")
	quoted := make([]string, len(cmd.Args))
	for i, a := range cmd.Args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	cmd.Path = script
	cmd.Args = []string{script, "-qec", strings.Join(quoted, " "), "/dev/null"}
	return cmd
}

// initWithTablespace creates a scratch tablespace whose name needs quoting
// and returns c using it. It skips when the server cannot create one here
// (not on this machine, or not allowed). The tablespace is dropped, with
// the tables in it, at the end of the subtest.
func initWithTablespace(t *testing.T, cfg *pgconn.Config, c initCompatCase, dbs ...string) initCompatCase {
	pg, err := user.Lookup("postgres")
	if err != nil {
		testsrv.Need(t, "no postgres user to own a tablespace directory: %v", err)
	}
	dir, err := os.MkdirTemp("", "gbench-ts-")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(pg.Uid)
	if err := os.Chown(dir, uid, -1); err != nil {
		os.RemoveAll(dir)
		testsrv.Need(t, "cannot give a tablespace directory to postgres: %v", err)
	}
	name := fmt.Sprintf(`gbench "init" ts %d`, os.Getpid())
	admin := initTestConnect(t, cfg, cfg.Database, nil)
	create := fmt.Sprintf("create tablespace %s location '%s'", initQuoteIdent(name), dir)
	if _, err := admin.Exec(context.Background(), create).ReadAll(); err != nil {
		os.RemoveAll(dir)
		testsrv.Need(t, "cannot create a tablespace (server on another machine?): %v", err)
	}
	t.Cleanup(func() {
		for _, db := range dbs {
			initTestExec(t, initTestConnect(t, cfg, db, nil), initDropSQL)
		}
		initTestExec(t, initTestConnect(t, cfg, cfg.Database, nil), "drop tablespace "+initQuoteIdent(name))
		os.RemoveAll(dir)
	})
	c.args = append([]string(nil), c.args...)
	for i, a := range c.args {
		c.args[i] = strings.ReplaceAll(a, "%TS%", name)
	}
	c.o.Tablespace, c.o.IndexTablespace = name, name
	return c
}

// TestInitCancel cancels Init during the COPY of pgbench_accounts: it
// returns ctx.Err() promptly.
func TestInitCancel(t *testing.T) {
	cfg := initTestConfig(t)
	db := initTestScratchDB(t, cfg, "cancel")
	conn := initTestConnect(t, cfg, db, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := initCancelWriter{cancel: cancel, on: "tuples"}
	err := Init(ctx, &Client{pc: conn}, InitOptions{Steps: "dtg", Scale: 5, FillFactor: 100}, log, false)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Init after cancel returned %v, want context.Canceled", err)
	}
	check := initTestConnect(t, cfg, db, nil)
	if n := initTestExec(t, check, "select count(*) from pgbench_accounts"); n[0] != "0" {
		t.Errorf("pgbench_accounts has %s rows after a cancelled load, want 0", n[0])
	}
}

// initCancelWriter calls cancel when a line containing on is written.
type initCancelWriter struct {
	cancel context.CancelFunc
	on     string
}

// Write implements io.Writer.
func (w initCancelWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.on) {
		w.cancel()
	}
	return len(p), nil
}
