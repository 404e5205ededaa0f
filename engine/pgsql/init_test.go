package pgsql

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// The statements are checked against pgbench's own in TestInitMatchesPgbench
// (through what they create); these tests pin the spots that a small scale
// cannot reach.

func TestInitCreateTableSQL(t *testing.T) {
	tests := []struct {
		name string
		o    InitOptions
		want []string
	}{
		// Defaults: fillfactor on all but history, int aids.
		{"default", InitOptions{Scale: 1, FillFactor: 100}, []string{
			"create table pgbench_history(tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22))",
			"create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=100)",
			"create table pgbench_accounts(aid    int not null,bid int,abalance int,filler char(84)) with (fillfactor=100)",
			"create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=100)",
		}},
		// Scale 20000 needs bigint aids; partitioned accounts take no
		// fillfactor; tablespace names are always quoted.
		{"big partitioned", InitOptions{Scale: 20000, FillFactor: 80, Unlogged: true, Partitions: 4,
			PartitionMethod: "hash", Tablespace: `a "b"`}, []string{
			`create unlogged table pgbench_history(tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)) tablespace "a ""b"""`,
			`create unlogged table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor=80) tablespace "a ""b"""`,
			`create unlogged table pgbench_accounts(aid bigint not null,bid int,abalance int,filler char(84)) partition by hash (aid) tablespace "a ""b"""`,
			`create unlogged table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor=80) tablespace "a ""b"""`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := initCreateSQLs(tt.o); !initEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestInitPartitionSQLs(t *testing.T) {
	tests := []struct {
		name string
		o    InitOptions
		want []string
	}{
		// Range bounds split 300000 aids in three, open at both ends.
		{"range", InitOptions{Scale: 3, FillFactor: 90, Partitions: 3}, []string{
			"create table pgbench_accounts_1\n  partition of pgbench_accounts\n  for values from (minvalue) to (100001) with (fillfactor=90)",
			"create table pgbench_accounts_2\n  partition of pgbench_accounts\n  for values from (100001) to (200001) with (fillfactor=90)",
			"create table pgbench_accounts_3\n  partition of pgbench_accounts\n  for values from (200001) to (maxvalue) with (fillfactor=90)",
		}},
		// Bounds past 2^31 at scale 30000, rounded up.
		{"range big", InitOptions{Scale: 30000, FillFactor: 100, Partitions: 7, PartitionMethod: "range"}, []string{
			"create table pgbench_accounts_1\n  partition of pgbench_accounts\n  for values from (minvalue) to (428571430) with (fillfactor=100)",
			"create table pgbench_accounts_2\n  partition of pgbench_accounts\n  for values from (428571430) to (857142859) with (fillfactor=100)",
			"create table pgbench_accounts_3\n  partition of pgbench_accounts\n  for values from (857142859) to (1285714288) with (fillfactor=100)",
			"create table pgbench_accounts_4\n  partition of pgbench_accounts\n  for values from (1285714288) to (1714285717) with (fillfactor=100)",
			"create table pgbench_accounts_5\n  partition of pgbench_accounts\n  for values from (1714285717) to (2142857146) with (fillfactor=100)",
			"create table pgbench_accounts_6\n  partition of pgbench_accounts\n  for values from (2142857146) to (2571428575) with (fillfactor=100)",
			"create table pgbench_accounts_7\n  partition of pgbench_accounts\n  for values from (2571428575) to (maxvalue) with (fillfactor=100)",
		}},
		// Hash: modulus and remainder, unlogged.
		{"hash", InitOptions{Scale: 1, FillFactor: 100, Partitions: 2, PartitionMethod: "hash", Unlogged: true}, []string{
			"create unlogged table pgbench_accounts_1\n  partition of pgbench_accounts\n  for values with (modulus 2, remainder 0) with (fillfactor=100)",
			"create unlogged table pgbench_accounts_2\n  partition of pgbench_accounts\n  for values with (modulus 2, remainder 1) with (fillfactor=100)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := initPartitionSQLs(tt.o); !initEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestInitPrimaryKeySQLsTablespace(t *testing.T) {
	got := initPrimaryKeySQLs(`x"y`)
	want := `alter table pgbench_accounts add primary key (aid) using index tablespace "x""y"`
	if got[2] != want {
		t.Errorf("got %q, want %q", got[2], want)
	}
}

func TestInitRows(t *testing.T) {
	tests := []struct {
		name string
		row  initRowFunc
		k    int64
		want string
	}{
		{"first branch", initBranchRow, 0, "1\t0\t\\N\n"},
		{"first teller", initTellerRow, 0, "1\t1\t0\t\\N\n"},
		// Ten tellers per branch.
		{"eleventh teller", initTellerRow, 10, "11\t2\t0\t\\N\n"},
		{"first account", initAccountRow, 0, "1\t1\t0\t\n"},
		// The last account of branch 1, the first of branch 2.
		{"account 100000", initAccountRow, 99999, "100000\t1\t0\t\n"},
		{"account 100001", initAccountRow, 100000, "100001\t2\t0\t\n"},
		// Past int32 at large scales.
		{"account 3e9", initAccountRow, 2999999999, "3000000000\t30000\t0\t\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tt.row(nil, tt.k)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRowReaderSmallReads reads with buffers smaller than a row: the text
// is the same as one big read.
func TestInitRowReaderSmallReads(t *testing.T) {
	want := initReadAll(t, newInitRowReader(context.Background(), initAccountRow, 1000, nil), 1<<16)
	got := initReadAll(t, newInitRowReader(context.Background(), initAccountRow, 1000, nil), 7)
	if got != want {
		t.Fatalf("7-byte reads differ from 64 KiB reads")
	}
	if lines := strings.Count(want, "\n"); lines != 1000 {
		t.Fatalf("%d rows, want 1000", lines)
	}
}

// initReadAll drains r with reads of size n.
func initReadAll(t *testing.T, r io.Reader, n int) string {
	t.Helper()
	var out bytes.Buffer
	buf := make([]byte, n)
	for {
		m, err := r.Read(buf)
		out.Write(buf[:m])
		if err == io.EOF {
			return out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRowReaderCancel: a cancelled context ends the stream with its error.
func TestInitRowReaderCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := newInitRowReader(ctx, initAccountRow, 1e6, nil)
	buf := make([]byte, 4096)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v, want context.Canceled", err)
	}
}

// initFakeClock advances by step at every call.
type initFakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *initFakeClock) now() time.Time {
	c.t = c.t.Add(c.step)
	return c.t
}

// initRunProgress generates total account rows through a progress on a fake
// clock advancing step per call and returns what it logged.
func initRunProgress(t *testing.T, total int64, quiet, tty bool, step time.Duration) string {
	t.Helper()
	var log bytes.Buffer
	clock := &initFakeClock{t: time.Unix(0, 0), step: step}
	p := newInitProgress(&log, total, quiet, tty, clock.now)
	initReadAll(t, newInitRowReader(context.Background(), initAccountRow, total, p), 1<<16)
	if err := p.finish(); err != nil {
		t.Fatal(err)
	}
	return log.String()
}

func TestInitProgressEvery100000Rows(t *testing.T) {
	got := initRunProgress(t, 300000, false, false, time.Second)
	want := "100000 of 300000 tuples (33%) done (elapsed 1.00 s, remaining 2.00 s)\n" +
		"200000 of 300000 tuples (66%) done (elapsed 2.00 s, remaining 1.00 s)\n" +
		"300000 of 300000 tuples (100%) done (elapsed 3.00 s, remaining 0.00 s)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestProgressTerminal: on a terminal lines overwrite each other and the
// last is followed by a newline (pgbench 15 writes "\r" then "\n").
func TestInitProgressTerminal(t *testing.T) {
	got := initRunProgress(t, 200000, false, true, time.Second)
	want := "100000 of 200000 tuples (50%) done (elapsed 1.00 s, remaining 1.00 s)\r" +
		"200000 of 200000 tuples (100%) done (elapsed 2.00 s, remaining 0.00 s)\r\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestProgressQuiet: with -q the clock is read every 100 rows; a line is
// due once 5 s, then each next multiple of 5 s, have passed, and at the end.
func TestInitProgressQuiet(t *testing.T) {
	// 12 ms per 100 rows: 5 s passed at row 41700 (5.004 s), 10 s at row
	// 83400 (10.008 s).
	got := initRunProgress(t, 120000, true, false, 12*time.Millisecond)
	want := "41700 of 120000 tuples (34%) done (elapsed 5.00 s, remaining 9.40 s)\n" +
		"83400 of 120000 tuples (69%) done (elapsed 10.01 s, remaining 4.39 s)\n" +
		"120000 of 120000 tuples (100%) done (elapsed 14.40 s, remaining 0.00 s)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestProgressWriteError: a failing log stops the stream with its error.
func TestInitProgressWriteError(t *testing.T) {
	clock := &initFakeClock{t: time.Unix(0, 0), step: time.Second}
	boom := errors.New("disk full")
	p := newInitProgress(initFailWriter{boom}, 300000, false, false, clock.now)
	r := newInitRowReader(context.Background(), initAccountRow, 300000, p)
	buf := make([]byte, 1<<16)
	for {
		if _, err := r.Read(buf); err != nil {
			if !errors.Is(err, boom) {
				t.Fatalf("got %v, want %v", err, boom)
			}
			return
		}
	}
}

// initFailWriter fails every write.
type initFailWriter struct{ err error }

func (w initFailWriter) Write([]byte) (int, error) { return 0, w.err }

func TestInitSummary(t *testing.T) {
	var s initSummary
	if got, want := s.String(), "done in 0.00 s ().\n"; got != want {
		t.Errorf("empty: got %q, want %q", got, want)
	}
	// The total adds the unrounded times: 0.004+0.004 s shows as 0.01 s.
	s.add("drop tables", 4*time.Millisecond)
	s.add("create tables", 4*time.Millisecond)
	want := "done in 0.01 s (drop tables 0.00 s, create tables 0.00 s).\n"
	if got := s.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestInitOptionsDefaults(t *testing.T) {
	tests := []struct {
		name    string
		in, out InitOptions
	}{
		// The zero value is pgbench -i with no options.
		{"zero", InitOptions{}, InitOptions{Steps: "dtgvp", Scale: 1, FillFactor: 100}},
		// Set values are kept.
		{"set", InitOptions{Steps: "dt", Scale: 3, FillFactor: 90}, InitOptions{Steps: "dt", Scale: 3, FillFactor: 90}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.withDefaults(); got != tt.out {
				t.Errorf("got %+v, want %+v", got, tt.out)
			}
		})
	}
}

// TestInitUnknownStep: Init checks every step before running any, so a nil
// connection is never touched.
func TestInitUnknownStep(t *testing.T) {
	var log bytes.Buffer
	err := Init(context.Background(), nil, InitOptions{Steps: "dx", Scale: 1}, &log, false)
	if err == nil || err.Error() != `unrecognized initialization step "x"` {
		t.Fatalf("got %v", err)
	}
	if log.Len() != 0 {
		t.Errorf("logged %q before failing", log.String())
	}
}

// TestInitOnlyBlanks: -I " " does nothing and says so, like pgbench.
func TestInitOnlyBlanks(t *testing.T) {
	var log bytes.Buffer
	if err := Init(context.Background(), nil, InitOptions{Steps: " ", Scale: 1}, &log, false); err != nil {
		t.Fatal(err)
	}
	if got, want := log.String(), "done in 0.00 s ().\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestInitErrorText(t *testing.T) {
	err := &InitError{SQL: "create table t()", Err: &pgconn.PgError{
		Severity: "ERROR", Message: `relation "t" already exists`, Detail: "d", Hint: "h", Where: "w",
	}}
	want := "query failed: ERROR:  relation \"t\" already exists\nDETAIL:  d\nHINT:  h\nCONTEXT:  w\n" +
		"Query was: create table t()"
	if err.Error() != want {
		t.Errorf("got %q\nwant %q", err.Error(), want)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		t.Error("errors.As does not find the *pgconn.PgError")
	}
}

func TestNoticeWriter(t *testing.T) {
	var log bytes.Buffer
	noticeWriter(&log)(nil, &pgconn.Notice{Severity: "NOTICE", Message: "m", Where: "not shown"})
	if got, want := log.String(), "NOTICE:  m\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// initEqual reports whether a and b hold the same strings in order.
func initEqual(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}
