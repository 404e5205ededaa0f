package main

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"syscall"

	"github.com/gbench/gbench/engine/pgsql"
)

// connString builds the libpq-style connection string pgbench would use:
// -h, -p and -U first, then the database name, which may itself be a
// conninfo string or a URI whose settings take precedence (as with libpq's
// expand_dbname).
func connString(o *options) string {
	if pgsql.IsURI(o.dbname) {
		return pgsql.URIWithDefaults(o.dbname, map[string]string{"host": o.host, "port": o.port, "user": o.username})
	}
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
		b.WriteString(pgsql.QuoteConnValue(v))
	}
	add("host", o.host)
	add("port", o.port)
	add("user", o.username)
	if strings.Contains(o.dbname, "=") {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(o.dbname)
	} else {
		add("dbname", o.dbname)
	}
	return b.String()
}

// pgConfig parses the connection settings.
func pgConfig(o *options) (*pgsql.Config, error) {
	conninfo := connString(o)
	c, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		return nil, usagef("%s", pgsql.ParseConfigError(conninfo, err))
	}
	c.SetFallbackApplicationName("gbench")
	return c, nil
}

// connError spells a failed connection the way libpq does, one line per
// address tried ("connection to server at "127.0.0.1", port 5432 failed:
// Connection refused", then libpq's hint), so that gbench's first error
// line is pgbench's. Errors of another shape keep pgx's text.
func connError(cfg *pgsql.Config, err error) string {
	attempts, ok := pgsql.ConnectAttempts(err)
	if !ok {
		return cfg.Redact(err.Error())
	}
	var out []string
	for _, a := range attempts {
		if msg := connAttemptError(cfg, a); !slices.Contains(out, msg) {
			out = append(out, msg) // pgx tries TLS, then plain: once is enough
		}
	}
	return strings.Join(out, "\n")
}

// connAttemptError spells one failed address like libpq.
func connAttemptError(cfg *pgsql.Config, a pgsql.ConnectAttempt) string {
	if a.Addr == "" {
		return cfg.Redact(a.Err.Error())
	}
	addr, host, socket := a.Addr, a.Host, a.Socket()
	where := fmt.Sprintf("connection to server on socket \"%s\" failed: ", addr)
	if !socket {
		ip, port, _ := net.SplitHostPort(addr)
		where = fmt.Sprintf("connection to server at \"%s\", port %s failed: ", ip, port)
		if host != ip {
			where = fmt.Sprintf("connection to server at \"%s\" (%s), port %s failed: ", host, ip, port)
		}
	}
	var errno syscall.Errno
	pe, server := pgsql.AsServerError(a.Err)
	switch {
	case server:
		return where + cfg.Redact(pe.Severity+":  "+pe.Message)
	case errors.As(a.Err, &errno) && socket:
		return where + strerror(errno) + "\n\tIs the server running locally and accepting connections on that socket?"
	case errors.As(a.Err, &errno) && errno == syscall.ECONNREFUSED:
		return where + strerror(errno) + "\n\tIs the server running on that host and accepting TCP/IP connections?"
	case errors.As(a.Err, &errno):
		return where + strerror(errno)
	}
	return where + cfg.Redact(a.Err.Error())
}
