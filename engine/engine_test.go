package engine_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/script"
)

// testPG returns the test server's configuration, or skips. extra is
// added to the connection string (e.g. "sslmode=disable").
func testPG(t testing.TB, extra ...string) *pgsql.Config {
	t.Helper()
	conninfo := testsrv.NeedPostgres(t)
	for _, e := range extra {
		conninfo += " " + e
	}
	cfg, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// exec runs SQL on the test server and returns the first column of the
// first row of the last result.
func exec(t testing.TB, cfg *pgsql.Config, sql string) string {
	t.Helper()
	ctx := context.Background()
	c, err := cfg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows, err := c.SimpleQuery(ctx, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if len(rows) == 0 {
		return ""
	}
	return string(rows[0][0])
}

// syncBuffer is a goroutine-safe buffer for Stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runScript runs a script against the test server.
func runScript(t testing.TB, pg *pgsql.Config, text string, mode script.Mode, edit func(*engine.Config)) (*engine.Result, string) {
	t.Helper()
	s, err := script.Parse("test.sql", text, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, mode, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 2, Threads: 2, Transactions: 5, MaxTries: 1,
		Seed: 1, Scale: 1, SQL: pgsql.Connector(pg), Stderr: &stderr, PerCommand: true}
	if edit != nil {
		edit(cfg)
	}
	res, err := engine.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	return res, stderr.String()
}

var modes = []script.Mode{script.Simple, script.Extended, script.Prepared}

func TestRunCountsTransactions(t *testing.T) {
	pg := testPG(t)
	for _, mode := range modes {
		res, stderr := runScript(t, pg, "\\set x random(1, 10)\nSELECT :x;\nSELECT 2;\n", mode, func(c *engine.Config) {
			c.Clients, c.Threads, c.Transactions = 4, 2, 25
		})
		if res.Aborted != 0 || res.Stats.Total.Cnt != 100 {
			t.Errorf("%s: aborted %d, processed %d, want 0 and 100\n%s", mode, res.Aborted, res.Stats.Total.Cnt, stderr)
		}
		if n := res.Stats.Commands[0][2].Latency.Count; n != 100 {
			t.Errorf("%s: SELECT 2 ran %d times, want 100", mode, n)
		}
	}
}

// TestRunSharesTotalTransactions runs 50 transactions shared by 8 clients
// (6 each, one more for the first two) with TotalTransactions, and
// checks what each client ran from the table it wrote.
func TestRunSharesTotalTransactions(t *testing.T) {
	pg := testPG(t)
	exec(t, pg, "DROP TABLE IF EXISTS gbench_t_total; CREATE TABLE gbench_t_total (client int)")
	res, stderr := runScript(t, pg, "INSERT INTO gbench_t_total VALUES (:client_id);\n", script.Prepared, func(c *engine.Config) {
		c.Clients, c.Threads, c.Transactions, c.TotalTransactions = 8, 2, 0, 50
	})
	if res.Aborted != 0 || res.Stats.Total.Cnt != 50 {
		t.Fatalf("aborted %d, processed %d, want 0 and 50\n%s", res.Aborted, res.Stats.Total.Cnt, stderr)
	}
	if got := exec(t, pg, "SELECT string_agg(n::text, ',' ORDER BY client) FROM (SELECT client, count(*) n FROM gbench_t_total GROUP BY client) s"); got != "7,7,6,6,6,6,6,6" {
		t.Errorf("transactions per client: %s, want 7,7,6,6,6,6,6,6", got)
	}
	sc, _ := script.Parse("t.sql", "SELECT 1;\n", 1)
	prog, _ := script.Compile([]*script.Script{sc}, script.Simple, nil)
	cfg := &engine.Config{Program: prog, Clients: 8, TotalTransactions: 5, SQL: pgsql.Connector(pg)}
	if _, err := engine.Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "5 transactions cannot be shared by 8 clients") {
		t.Errorf("5 transactions for 8 clients: %v", err)
	}
}

// TestGsetAndVariables stores results into variables and writes what the
// script computed into a table, so the test reads back what really ran.
func TestGsetAndVariables(t *testing.T) {
	pg := testPG(t)
	exec(t, pg, "DROP TABLE IF EXISTS gbench_t_gset; CREATE TABLE gbench_t_gset (client int, v bigint, s text)")
	src := `SELECT 7 AS seven, 'x''y' AS txt \gset p_
\set y :p_seven * 2 + :client_id
SELECT :y AS last \gset
\if :last > 14
INSERT INTO gbench_t_gset VALUES (:client_id, :last, :'p_txt');
\else
\set neg -:last
INSERT INTO gbench_t_gset VALUES (:client_id, :neg, 'else');
\endif
`
	for _, mode := range modes {
		exec(t, pg, "TRUNCATE gbench_t_gset")
		src := strings.Replace(src, ":'p_txt'", "'lit'", 1)
		res, stderr := runScript(t, pg, src, mode, func(c *engine.Config) { c.Transactions = 1 })
		if res.Aborted != 0 {
			t.Fatalf("%s: aborted\n%s", mode, stderr)
		}
		if got := exec(t, pg, "SELECT string_agg(client || ':' || v || ':' || s, ',' ORDER BY client) FROM gbench_t_gset"); got != "0:-14:else,1:15:lit" {
			t.Errorf("%s: table holds %q", mode, got)
		}
	}
}

// TestCompoundGset: with \; only the last result goes into variables.
func TestCompoundGset(t *testing.T) {
	pg := testPG(t)
	exec(t, pg, "DROP TABLE IF EXISTS gbench_t_comp; CREATE TABLE gbench_t_comp (v text)")
	src := "SELECT 1 AS a \\; SELECT 2 AS b \\gset\nINSERT INTO gbench_t_comp VALUES (':a/:b');\n"
	res, stderr := runScript(t, pg, src, script.Simple, func(c *engine.Config) { c.Clients, c.Transactions = 1, 1 })
	if res.Aborted != 0 {
		t.Fatalf("aborted\n%s", stderr)
	}
	if got := exec(t, pg, "SELECT v FROM gbench_t_comp"); got != ":a/2" {
		t.Errorf("compound \\gset stored %q, want only the last result (:a/2)", got)
	}
}

func TestListsBindAsArrays(t *testing.T) {
	pg := testPG(t)
	exec(t, pg, "DROP TABLE IF EXISTS gbench_t_list; CREATE TABLE gbench_t_list (mode text, total bigint, n int)")
	for _, mode := range modes {
		src := "\\set keys range(10, 4)\nSELECT sum(k) AS total, count(*) AS n FROM unnest(:keys) AS k \\gset\n" +
			"INSERT INTO gbench_t_list VALUES ('" + mode.String() + "', :total, :n);\n"
		res, stderr := runScript(t, pg, src, mode, func(c *engine.Config) { c.Clients, c.Transactions = 1, 1 })
		if res.Aborted != 0 {
			t.Fatalf("%s: aborted\n%s", mode, stderr)
		}
	}
	if got := exec(t, pg, "SELECT string_agg(mode || '=' || total || '/' || n, ',' ORDER BY mode) FROM gbench_t_list"); got != "extended=46/4,prepared=46/4,simple=46/4" {
		t.Errorf("lists gave %q", got)
	}
}

func TestPipeline(t *testing.T) {
	pg := testPG(t)
	src := "\\startpipeline\nSELECT 1;\nSELECT 2;\n\\syncpipeline\nSELECT 3;\n\\endpipeline\n"
	for _, mode := range []script.Mode{script.Extended, script.Prepared} {
		res, stderr := runScript(t, pg, src, mode, nil)
		if res.Aborted != 0 || res.Stats.Total.Cnt != 10 {
			t.Errorf("%s: aborted %d processed %d\n%s", mode, res.Aborted, res.Stats.Total.Cnt, stderr)
		}
	}
	res, stderr := runScript(t, pg, src, script.Simple, nil)
	if res.Aborted != 2 || !strings.Contains(stderr, "cannot use pipeline mode with the simple query protocol") {
		t.Errorf("simple mode pipeline: aborted %d\n%s", res.Aborted, stderr)
	}
}

func TestAborts(t *testing.T) {
	pg := testPG(t)
	tests := []struct {
		name, src, msg string
	}{
		{"sql error", "SELECT 1/0;\n", "division by zero"},
		{"open transaction", "BEGIN;\nSELECT 1;\n", "end of script reached without completing the last transaction"},
		{"undefined variable", "\\set x :nope + 1\n", `undefined variable "nope"`},
		{"gset no row", "SELECT 1 AS a WHERE false \\gset\n", "expected one row, got 0"},
		{"pipeline left open", "\\startpipeline\nSELECT 1;\n", "end of script reached with pipeline open"},
	}
	for _, tt := range tests {
		res, stderr := runScript(t, pg, tt.src, script.Extended, nil)
		if res.Aborted != 2 || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%s: aborted %d, stderr lacks %q:\n%s", tt.name, res.Aborted, tt.msg, stderr)
		}
	}
}

// TestRetriesKeepCountsConsistent makes clients collide on one row under
// REPEATABLE READ: serialization failures are retried, and the row's final
// value must equal the number of successful transactions.
func TestRetriesKeepCountsConsistent(t *testing.T) {
	pg := testPG(t)
	exec(t, pg, "DROP TABLE IF EXISTS gbench_t_retry; CREATE TABLE gbench_t_retry (id int primary key, v int); INSERT INTO gbench_t_retry VALUES (1, 0)")
	src := "BEGIN ISOLATION LEVEL REPEATABLE READ;\nSELECT v FROM gbench_t_retry WHERE id = 1;\n\\sleep 1 ms\nUPDATE gbench_t_retry SET v = v + 1 WHERE id = 1;\nEND;\n"
	res, stderr := runScript(t, pg, src, script.Prepared, func(c *engine.Config) {
		c.Clients, c.Threads, c.Transactions, c.MaxTries = 4, 2, 20, 100
	})
	total := res.Stats.Total
	if res.Aborted != 0 {
		t.Fatalf("aborted:\n%s", stderr)
	}
	if got := exec(t, pg, "SELECT v FROM gbench_t_retry"); got != itoa(total.Cnt) {
		t.Errorf("row value %s, successful transactions %d", got, total.Cnt)
	}
	if total.Cnt+total.Failures() != 80 {
		t.Errorf("processed %d + failed %d, want 80", total.Cnt, total.Failures())
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestSleepAndDuration(t *testing.T) {
	pg := testPG(t)
	res, _ := runScript(t, pg, "\\sleep 20 ms\nSELECT 1;\n", script.Simple, func(c *engine.Config) {
		c.Clients, c.Transactions = 1, 3
	})
	if min := res.Stats.Total.Latency.Min; min < 20000 {
		t.Errorf("a transaction with \\sleep 20 ms took %.0f us", min)
	}
	res, _ = runScript(t, pg, "SELECT 1;\n", script.Prepared, func(c *engine.Config) {
		c.Transactions, c.Duration = 0, time.Second
	})
	// -T 1 runs at least a second; a run that ignored it would never end,
	// which the test's timeout reports: no upper bound guesses the
	// machine's speed.
	if res.Stats.Total.Cnt == 0 || res.Bench < time.Second {
		t.Errorf("-T 1 ran %v and %d transactions", res.Bench, res.Stats.Total.Cnt)
	}
}
