package pgsql

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gbench/gbench/internal/testsrv"
)

// errPosCases are statements the server rejects at a position, with the
// message psql 15 prints for them (libpq's default verbosity): the LINE
// display is cut to 60 columns around the position, on the right first.
var errPosCases = []struct{ sql, want string }{
	{"SELEC 1", "ERROR:  syntax error at or near \"SELEC\"\nLINE 1: SELEC 1\n        ^"},
	// a position in the second line
	{"SELECT 1,\n  2 +* 3", "ERROR:  operator does not exist: integer +* integer\nLINE 2:   2 +* 3\n            ^\n" +
		"HINT:  No operator matches the given name and argument types. You might need to add explicit type casts."},
	// a tab is shown as a blank
	{"SELECT 1 +\n\t* 2", "ERROR:  syntax error at or near \"*\"\nLINE 2:  * 2\n         ^"},
	// a long line, cut on the left
	{"SELECT '" + strings.Repeat("a", 90) + "' + + FROM x", "ERROR:  syntax error at or near \"FROM\"\n" +
		"LINE 1: ..." + strings.Repeat("a", 48) + "' + + FROM x\n" + strings.Repeat(" ", 65) + "^"},
	// a long line, cut on the right
	{"SELECT 'x' +* 1, '" + strings.Repeat("b", 80) + "'", "ERROR:  operator does not exist: unknown +* integer\n" +
		"LINE 1: SELECT 'x' +* 1, '" + strings.Repeat("b", 42) + "...\n" + strings.Repeat(" ", 19) + "^\n" +
		"HINT:  No operator matches the given name and argument types. You might need to add explicit type casts."},
	// characters of two bytes count as one column
	{"SELECT 'héllo wörld', 1 +* 2", "ERROR:  operator does not exist: integer +* integer\n" +
		"LINE 1: SELECT 'héllo wörld', 1 +* 2\n" + strings.Repeat(" ", 32) + "^\n" +
		"HINT:  No operator matches the given name and argument types. You might need to add explicit type casts."},
}

// TestErrorPositionLikeLibpq runs each statement on the test server and
// checks that Error shows the server's error as the table says, and that
// psql prints the table's text: a side-by-side test, so without psql it
// is a visible skip (a failure under GBENCH_REQUIRE_SERVICES=1), never a
// check of gbench against its own table alone.
func TestErrorPositionLikeLibpq(t *testing.T) {
	cfg := initTestConfig(t)
	psql := testsrv.NeedCommand(t, "psql", "Debian's postgresql-client")
	conn := initTestConnect(t, cfg, cfg.Database, nil)
	for _, c := range errPosCases {
		_, err := conn.Exec(context.Background(), c.sql).ReadAll()
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Position == 0 {
			t.Fatalf("%q: want an error with a position, got %v", c.sql, err)
		}
		e := &Error{Severity: pe.Severity, Message: pe.Message, Detail: pe.Detail, Hint: pe.Hint,
			Position: int(pe.Position), Query: c.sql}
		if got := e.Error(); got != c.want {
			t.Errorf("%q:\ngot:\n%s\nwant:\n%s", c.sql, got, c.want)
		}
		cmd := exec.Command(psql, "-X", "-q", "-h", cfg.Host, "-p", strconv.Itoa(int(cfg.Port)), "-U", cfg.User, "-d", cfg.Database)
		cmd.Stdin = strings.NewReader(c.sql)
		cmd.Env = append(cmd.Environ(), "PGPASSWORD="+cfg.Password, "LC_MESSAGES=C")
		out, _ := cmd.CombinedOutput()
		if got := strings.TrimSuffix(string(out), "\n"); got != c.want {
			t.Errorf("%q: psql prints, not what the table says:\n%s", c.sql, got)
		}
	}
}

// TestErrorWithoutStatement: without the statement (a prepared statement
// ran), the position is given in words, as libpq does.
func TestErrorWithoutStatement(t *testing.T) {
	e := &Error{Severity: "ERROR", Message: "boom", Position: 7, Where: "SQL function \"f\""}
	want := "ERROR:  boom at character 7\nCONTEXT:  SQL function \"f\""
	if got := e.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
