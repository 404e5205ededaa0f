package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/jackc/pgx/v5/pgconn"
)

// connString builds the libpq-style connection string pgbench would use:
// -h, -p and -U first, then the database name, which may itself be a
// conninfo string or a URI whose settings take precedence (as with libpq's
// expand_dbname).
func connString(o *options) string {
	var b strings.Builder
	add := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(quoteConnValue(v))
	}
	add("host", o.host)
	add("port", o.port)
	add("user", o.username)
	switch {
	case isURI(o.dbname):
		return mergeURI(b.String(), o.dbname)
	case strings.Contains(o.dbname, "="):
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(o.dbname)
	default:
		add("dbname", o.dbname)
	}
	return b.String()
}

func isURI(s string) bool {
	return strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://")
}

// mergeURI turns a URI into keyword=value settings after the options' ones,
// so that the URI wins, as libpq does.
func mergeURI(opts, uri string) string {
	u, err := url.Parse(uri)
	if err != nil || strings.Contains(u.Host, ",") {
		return uri // let the driver parse (and report on) it as given
	}
	var parts []string
	if opts != "" {
		parts = append(parts, opts)
	}
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+quoteConnValue(v))
		}
	}
	add("host", u.Hostname())
	add("port", u.Port())
	if u.User != nil {
		add("user", u.User.Username())
		if p, ok := u.User.Password(); ok {
			add("password", p)
		}
	}
	add("dbname", strings.TrimPrefix(u.Path, "/"))
	for k, vs := range u.Query() {
		for _, v := range vs {
			add(k, v)
		}
	}
	return strings.Join(parts, " ")
}

// quoteConnValue quotes a conninfo value when needed.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " '\\\t\n") {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = strings.ReplaceAll(v, `'`, `\'`)
	return "'" + v + "'"
}

// pgConfig parses the connection settings.
func pgConfig(o *options) (*pgsql.Config, error) {
	c, err := pgsql.ParseConfig(connString(o))
	if err != nil {
		return nil, usagef("%s", redact(err.Error()))
	}
	c.SetFallbackApplicationName("gbench")
	return c, nil
}

var (
	rePassword    = regexp.MustCompile(`password=('(?:[^'\\]|\\.)*'|[^\s]+)`)
	reURIPassword = regexp.MustCompile(`(://[^:/@\s]*):[^@/\s]*@`)
)

// redact hides passwords in a message that quotes connection settings.
func redact(msg string) string {
	msg = rePassword.ReplaceAllString(msg, "password=xxxxx")
	return reURIPassword.ReplaceAllString(msg, "$1:xxxxx@")
}

// connError spells a failed connection the way libpq does, one line per
// address tried ("connection to server at "127.0.0.1", port 5432 failed:
// Connection refused", then libpq's hint), so that gbench's first error
// line is pgbench's. Errors of another shape keep pgx's text.
func connError(err error) string {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return redact(err.Error())
	}
	inner := ce.Unwrap()
	attempts := []error{inner}
	if j, ok := inner.(interface{ Unwrap() []error }); ok {
		attempts = j.Unwrap()
	}
	var out []string
	for _, a := range attempts {
		if msg := connAttemptError(a); !slices.Contains(out, msg) {
			out = append(out, msg) // pgx tries TLS, then plain: once is enough
		}
	}
	return strings.Join(out, "\n")
}

// reAttempt reads pgconn's "address (original host): cause".
var reAttempt = regexp.MustCompile(`^(.*?) \((.*?)\): `)

// connAttemptError spells one failed address like libpq.
func connAttemptError(a error) string {
	m := reAttempt.FindStringSubmatch(a.Error())
	if m == nil {
		return redact(a.Error())
	}
	addr, host := m[1], m[2]
	socket := strings.HasPrefix(addr, "/")
	where := fmt.Sprintf("connection to server on socket \"%s\" failed: ", addr)
	if !socket {
		ip, port, _ := net.SplitHostPort(addr)
		where = fmt.Sprintf("connection to server at \"%s\", port %s failed: ", ip, port)
		if host != ip {
			where = fmt.Sprintf("connection to server at \"%s\" (%s), port %s failed: ", host, ip, port)
		}
	}
	var pe *pgconn.PgError
	var errno syscall.Errno
	switch {
	case errors.As(a, &pe):
		return where + pe.Severity + ":  " + pe.Message
	case errors.As(a, &errno) && socket:
		return where + strerror(errno) + "\n\tIs the server running locally and accepting connections on that socket?"
	case errors.As(a, &errno) && errno == syscall.ECONNREFUSED:
		return where + strerror(errno) + "\n\tIs the server running on that host and accepting TCP/IP connections?"
	case errors.As(a, &errno):
		return where + strerror(errno)
	}
	return where + redact(strings.TrimPrefix(a.Error(), m[0]))
}
