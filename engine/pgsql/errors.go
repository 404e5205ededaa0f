package pgsql

import (
	"errors"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ServerError is an error the server reported (an ErrorResponse), as
// found in an error of Open, a Client call or Init by AsServerError.
type ServerError struct {
	Severity string // ERROR, FATAL, PANIC
	Code     string // SQLSTATE, e.g. 42P01
	Message  string
	Detail   string
	Hint     string
	Where    string // CONTEXT
}

// Error is "SEVERITY: message (SQLSTATE code)".
func (e *ServerError) Error() string {
	return e.Severity + ": " + e.Message + " (SQLSTATE " + e.Code + ")"
}

// Libpq is the error as libpq prints it by default: "SEVERITY:  message",
// then its DETAIL and HINT lines and, when context is set, its CONTEXT,
// each line ending in a newline.
func (e *ServerError) Libpq(context bool) string {
	return libpqMessage(&pgconn.PgError{Severity: e.Severity, Message: e.Message, Detail: e.Detail, Hint: e.Hint, Where: e.Where}, context)
}

// AsServerError finds the server's error in err's chain.
func AsServerError(err error) (*ServerError, bool) {
	var se *ServerError
	if errors.As(err, &se) {
		return se, true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return nil, false
	}
	return &ServerError{Severity: pe.Severity, Code: pe.Code, Message: pe.Message, Detail: pe.Detail, Hint: pe.Hint, Where: pe.Where}, true
}

// ConnectAttempt is one address a failed connection tried.
type ConnectAttempt struct {
	// Addr is "ip:port", or a Unix socket's path.
	Addr string
	// Host is the host name the address came from, as the settings gave it.
	Host string
	// Err is why it failed: a *ServerError (see AsServerError) when the
	// server refused, a syscall.Errno for a refused or failed socket, or
	// another error. Its text does not repeat the address.
	Err error
}

// Socket reports whether the attempt was on a Unix socket.
func (a ConnectAttempt) Socket() bool { return strings.HasPrefix(a.Addr, "/") }

// attemptText reads pgconn's "address (original host): cause".
var attemptText = regexp.MustCompile(`^(.*?) \((.*?)\): `)

// ConnectAttempts returns, for an error of Open or Connect, the addresses
// the connection tried and why each failed, in order; ok is false when err
// is not a failed connection attempt.
func ConnectAttempts(err error) (attempts []ConnectAttempt, ok bool) {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return nil, false
	}
	inner := ce.Unwrap()
	each := []error{inner}
	if j, ok := inner.(interface{ Unwrap() []error }); ok {
		each = j.Unwrap()
	}
	for _, e := range each {
		a := ConnectAttempt{Err: e}
		if m := attemptText.FindStringSubmatch(e.Error()); m != nil {
			a.Addr, a.Host = m[1], m[2]
			a.Err = &trimmedError{text: strings.TrimPrefix(e.Error(), m[0]), err: errors.Unwrap(e)}
		}
		attempts = append(attempts, a)
	}
	return attempts, true
}

// trimmedError is an attempt's cause with pgconn's address prefix taken
// off its text; errors.As still finds what it wraps.
type trimmedError struct {
	text string
	err  error
}

func (e *trimmedError) Error() string { return e.text }
func (e *trimmedError) Unwrap() error { return e.err }

// ConfigErrorReason returns, for an error of ParseConfig, pgx's reason
// without the connection string it quotes (which may hold a password), and
// whether err is such an error.
func ConfigErrorReason(err error) (string, bool) {
	if oe, ok := errors.AsType[*optionError](err); ok {
		return oe.msg, true
	}
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return "", false
	}
	bare := *pe
	bare.ConnString = ""
	return strings.TrimPrefix(bare.Error(), "cannot parse ``: "), true
}
