package pgsql

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// InitError is a statement of Init that failed. Its Error text is the two
// lines pgbench prints after its "pgbench: error: " and "pgbench: detail: "
// prefixes: "query failed: ERROR:  ..." and "Query was: <SQL>".
type InitError struct {
	// SQL is the statement as sent.
	SQL string
	// Err is what pgconn returned, usually a *pgconn.PgError.
	Err error
}

// Error returns "query failed: <server message>\nQuery was: <SQL>".
func (e *InitError) Error() string {
	return "query failed: " + e.Message() + "\nQuery was: " + e.SQL
}

// Message is the server's error as libpq formats it ("ERROR:  text", then
// DETAIL, HINT and CONTEXT lines when present), without a final newline.
func (e *InitError) Message() string {
	var pgErr *pgconn.PgError
	if errors.As(e.Err, &pgErr) {
		return strings.TrimSuffix(libpqMessage(pgErr, true), "\n")
	}
	return e.Err.Error()
}

// Unwrap returns Err, so errors.As finds the *pgconn.PgError.
func (e *InitError) Unwrap() error { return e.Err }

// noticeWriter returns a pgconn.NoticeHandler that writes each server notice
// to w as libpq's default notice processor writes it to stderr, for example
// `NOTICE:  table "pgbench_accounts" does not exist, skipping`. The handler
// runs on the goroutine using the connection; write errors are dropped, as
// libpq drops them.
func noticeWriter(w io.Writer) pgconn.NoticeHandler {
	return func(_ *pgconn.PgConn, n *pgconn.Notice) {
		_, _ = io.WriteString(w, libpqMessage((*pgconn.PgError)(n), false))
	}
}

// libpqMessage formats a server message like libpq's default verbosity:
// "SEVERITY:  message" and the DETAIL, HINT and (for errors only, libpq's
// default) CONTEXT fields, each line ending in a newline.
func libpqMessage(e *pgconn.PgError, withContext bool) string {
	var b strings.Builder
	b.WriteString(e.Severity + ":  " + e.Message + "\n")
	field := func(name, value string) {
		if value != "" {
			b.WriteString(name + ":  " + value + "\n")
		}
	}
	field("DETAIL", e.Detail)
	field("HINT", e.Hint)
	if withContext {
		field("CONTEXT", e.Where)
	}
	return b.String()
}

// initExec runs one statement with the simple query protocol, as
// pgbench's PQexec does. A cancelled ctx wins over the error it causes.
func initExec(ctx context.Context, conn *Client, sql string) error {
	err := conn.Exec(ctx, sql)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &InitError{SQL: sql, Err: err}
}

// initServerMajor is the major version of the server conn is connected to,
// read from the server_version parameter ("15.20 (Debian ...)" gives 15,
// "9.6.3" gives 9); 0 when it cannot be read.
func initServerMajor(conn *Client) int {
	v := conn.Parameter("server_version")
	end := strings.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	if end >= 0 {
		v = v[:end]
	}
	n, _ := strconv.Atoi(v)
	return n
}
