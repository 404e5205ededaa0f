package pgsql

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// DefaultInitSteps is pgbench's default -I value: drop, create, generate
// client-side, vacuum, primary keys.
const DefaultInitSteps = "dtgvp"

// InitOptions are pgbench's initialization options. The CLI validates them
// before calling Init and folds two options into Steps the way pgbench does:
// -n/--no-vacuum removes every 'v', and --foreign-keys appends 'f' when Steps
// has none. The zero value of Steps, Scale and FillFactor stands for
// pgbench's default.
type InitOptions struct {
	// Steps is -I: characters from "dtgGvpf " run in order; ' ' is ignored.
	// "" means DefaultInitSteps.
	Steps string
	// Scale is -s, at least 1 (0 means 1). From 20000 on, aid columns are
	// bigint.
	Scale int
	// FillFactor is -F, 10..100 (0 means 100, pgbench's default).
	FillFactor int
	// Quiet is -q: report generation progress every 5 s instead of every
	// 100000 rows.
	Quiet bool
	// Unlogged is --unlogged-tables.
	Unlogged bool
	// Partitions is --partitions; 0 leaves pgbench_accounts unpartitioned.
	Partitions int
	// PartitionMethod is --partition-method, "range" or "hash". It is
	// ignored when Partitions is 0; "" means "range", pgbench's default.
	PartitionMethod string
	// Tablespace is --tablespace for the four tables ("" for the default).
	Tablespace string
	// IndexTablespace is --index-tablespace for the primary keys.
	IndexTablespace string
}

// withDefaults returns o with its zero values replaced by pgbench's defaults.
func (o InitOptions) withDefaults() InitOptions {
	if o.Steps == "" {
		o.Steps = DefaultInitSteps
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.FillFactor == 0 {
		o.FillFactor = 100
	}
	return o
}

// Init runs pgbench's initialization (-i) on conn: the steps of o.Steps in
// order, printing to log the same lines as pgbench 15 prints to stderr,
// ending with the "done in ..." summary. tty selects pgbench's progress line
// ending: '\r' when stderr is a terminal, '\n' otherwise.
//
// Server notices (such as "table ... does not exist, skipping" when dropping)
// are not written by Init: pgbench gets them from libpq's notice processor,
// so the caller should connect with noticeWriter(log) as OnNotice.
//
// Init uses conn alone and must not share it with other goroutines while it
// runs. Progress lines are written to log from pgconn's COPY goroutine, while
// Init waits for it; a notice arriving during COPY would be written at the
// same time, so a log shared with NoticeWriter should be safe for concurrent
// writes, as os.Stderr is. A failing statement returns an *InitError naming it; when ctx is
// cancelled, Init stops between statements or between COPY chunks and
// returns ctx.Err(). After an error, conn may be closed or left inside a
// failed transaction: the caller should close it.
func Init(ctx context.Context, conn *Client, o InitOptions, log io.Writer, tty bool) error {
	o = o.withDefaults()
	if err := initCheckSteps(o.Steps); err != nil {
		return err
	}
	in := &initializer{ctx: ctx, conn: conn, o: o, log: log, tty: tty}
	var sum initSummary
	for _, c := range []byte(o.Steps) {
		s, _ := initStepFor(c)
		if s.run == nil {
			continue
		}
		start := time.Now()
		if err := s.run(in); err != nil {
			return err
		}
		sum.add(s.name, time.Since(start))
	}
	_, err := io.WriteString(log, sum.String())
	return err
}

// initStep is one -I character: its name in the summary and what it does.
type initStep struct {
	name string
	run  func(*initializer) error
}

// initStepFor returns the step for an -I character; ' ' is a step that does
// nothing.
func initStepFor(c byte) (initStep, bool) {
	switch c {
	case 'd':
		return initStep{"drop tables", (*initializer).dropTables}, true
	case 't':
		return initStep{"create tables", (*initializer).createTables}, true
	case 'g':
		return initStep{"client-side generate", (*initializer).generateClientSide}, true
	case 'G':
		return initStep{"server-side generate", (*initializer).generateServerSide}, true
	case 'v':
		return initStep{"vacuum", (*initializer).vacuum}, true
	case 'p':
		return initStep{"primary keys", (*initializer).primaryKeys}, true
	case 'f':
		return initStep{"foreign keys", (*initializer).foreignKeys}, true
	case ' ':
		return initStep{}, true
	}
	return initStep{}, false
}

// initCheckSteps rejects an unknown -I character before anything runs.
func initCheckSteps(steps string) error {
	for _, c := range []byte(steps) {
		if _, ok := initStepFor(c); !ok {
			return fmt.Errorf("unrecognized initialization step \"%c\"", c)
		}
	}
	return nil
}

// initSummary collects the time of each step for the final line.
type initSummary struct {
	total float64
	parts []string
}

// add records that step name took d.
func (s *initSummary) add(name string, d time.Duration) {
	sec := d.Seconds()
	s.total += sec
	s.parts = append(s.parts, fmt.Sprintf("%s %.2f s", name, sec))
}

// String is pgbench's "done in ..." line, newline included. Like pgbench, the
// total is the sum of the unrounded step times.
func (s *initSummary) String() string {
	return fmt.Sprintf("done in %.2f s (%s).\n", s.total, strings.Join(s.parts, ", "))
}

// initializer carries what every step needs.
type initializer struct {
	ctx  context.Context
	conn *Client
	o    InitOptions
	log  io.Writer
	tty  bool
}

// say writes one message line to the log.
func (in *initializer) say(msg string) error {
	_, err := io.WriteString(in.log, msg+"\n")
	return err
}

// execAll runs statements one at a time, stopping at the first failure.
func (in *initializer) execAll(sqls ...string) error {
	for _, sql := range sqls {
		if err := initExec(in.ctx, in.conn, sql); err != nil {
			return err
		}
	}
	return nil
}

// dropTables is step 'd'.
func (in *initializer) dropTables() error {
	if err := in.say("dropping old tables..."); err != nil {
		return err
	}
	return in.execAll(initDropSQL)
}

// createTables is step 't': the four tables, then the partitions of
// pgbench_accounts.
func (in *initializer) createTables() error {
	if err := in.say("creating tables..."); err != nil {
		return err
	}
	if err := in.execAll(initCreateSQLs(in.o)...); err != nil {
		return err
	}
	if in.o.Partitions <= 0 {
		return nil
	}
	if err := in.say(fmt.Sprintf("creating %d partitions...", in.o.Partitions)); err != nil {
		return err
	}
	return in.execAll(initPartitionSQLs(in.o)...)
}

// generateServerSide is step 'G': one transaction of generate_series inserts.
func (in *initializer) generateServerSide() error {
	if err := in.say("generating data (server-side)..."); err != nil {
		return err
	}
	sqls := append([]string{"begin", initTruncateSQL}, initServerSideSQLs(in.o.Scale)...)
	return in.execAll(append(sqls, "commit")...)
}

// vacuum is step 'v'.
func (in *initializer) vacuum() error {
	if err := in.say("vacuuming..."); err != nil {
		return err
	}
	return in.execAll(initVacuumSQLs...)
}

// primaryKeys is step 'p'.
func (in *initializer) primaryKeys() error {
	if err := in.say("creating primary keys..."); err != nil {
		return err
	}
	return in.execAll(initPrimaryKeySQLs(in.o.IndexTablespace)...)
}

// foreignKeys is step 'f'.
func (in *initializer) foreignKeys() error {
	if err := in.say("creating foreign keys..."); err != nil {
		return err
	}
	return in.execAll(initForeignKeySQLs...)
}
