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
)

// connString builds the libpq-style connection string pgbench would use:
// -h, -p and -U first, then the database name, which may itself be a
// conninfo string or a URI whose settings take precedence (as with libpq's
// expand_dbname).
func connString(o *options) string {
	if isURI(o.dbname) {
		return uriWithDefaults(o.dbname, map[string]string{"host": o.host, "port": o.port, "user": o.username})
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
		b.WriteString(quoteConnValue(v))
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

func isURI(s string) bool {
	return strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://")
}

// uriWithDefaults adds to a URI, as query parameters, the settings of
// defaults (host, port, user: -h, -p, -U) it does not set itself, so that
// the URI's own win as with libpq and pgx parses the URI as it is. The URI
// is read the way libpq reads it: the user information ends at the first
// '@' before a '/', hosts and ports are the comma-separated list before
// the path or query.
func uriWithDefaults(uri string, defaults map[string]string) string {
	set := uriKeys(uri)
	var add []string
	for _, k := range []string{"host", "port", "user"} {
		if v := defaults[k]; v != "" && !set[k] {
			add = append(add, k+"="+uriEscape(v))
		}
	}
	if len(add) == 0 {
		return uri
	}
	sep := "?"
	if i := uriQuery(uri); i >= 0 {
		sep = "&"
		if i == len(uri)-1 {
			sep = ""
		}
	}
	return uri + sep + strings.Join(add, "&")
}

// uriLayout is where the parts of a postgres:// URI are, read the way
// pgx's parser (and libpq's) reads them: the user information ends at the
// first '@' before any '/'; then a comma-separated list of hosts, each an
// [IPv6] address when it starts with '[' (to the next ']', whatever it
// holds: "[a?b]" and "[a,b]" are one bracketed host), else a name up to
// ':', '/', '?' or ','; each with an optional ":port" up to '/', '?' or
// ','; then an optional "/dbname" up to '?'; then the query.
type uriLayout struct {
	hostStart int  // after the user information
	query     int  // the '?' that starts the query, -1 when none
	hosts     int  // the hosts listed, commas outside brackets + 1
	port      bool // a port was written (":5433"), or the list implies one per host
	valid     bool // pgx's grammar reads the hosts to their end
}

func layoutURI(uri string) uriLayout {
	l := uriLayout{query: -1, hosts: 1}
	start := strings.Index(uri, "://") + 3
	if i := strings.IndexAny(uri[start:], "@/"); i >= 0 && uri[start+i] == '@' {
		start += i + 1
	}
	l.hostStart = start
	i := start
	for {
		if i < len(uri) && uri[i] == '[' {
			end := strings.IndexByte(uri[i:], ']')
			if end < 0 {
				return l // pgx refuses it: no query can be told
			}
			i += end + 1
			if i < len(uri) && strings.IndexByte(":/?,", uri[i]) < 0 {
				return l
			}
		} else {
			i += indexOr(uri[i:], ":/?,")
		}
		if i < len(uri) && uri[i] == ':' {
			j := i + 1 + indexOr(uri[i+1:], "/?,")
			l.port = l.port || j > i+1
			i = j
		}
		if i >= len(uri) || uri[i] != ',' {
			break
		}
		l.hosts++
		l.port = true // postgres://h1,h2 is port=",", an empty port each
		i++
	}
	l.valid = true
	if i < len(uri) && uri[i] == '/' {
		i += indexOr(uri[i:], "?")
	}
	if i < len(uri) && uri[i] == '?' {
		l.query = i
	}
	return l
}

// indexOr is strings.IndexAny, or len(s) when s holds none of chars.
func indexOr(s, chars string) int {
	if i := strings.IndexAny(s, chars); i >= 0 {
		return i
	}
	return len(s)
}

// uriQuery returns the index of the '?' that starts a URI's query, -1
// when it has none.
func uriQuery(uri string) int { return layoutURI(uri).query }

// uriKeys reports which of host, port and user a URI sets.
func uriKeys(uri string) map[string]bool {
	_, p, _ := strings.Cut(uri, "://")
	set := map[string]bool{}
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		user, _, _ := strings.Cut(p[:i], ":")
		set["user"] = user != ""
	}
	l := layoutURI(uri)
	netloc := uri[l.hostStart:]
	if l.query >= 0 {
		netloc = uri[l.hostStart:l.query]
	}
	netloc, _, _ = strings.Cut(netloc, "/")
	// A list of hosts sets the host even when its entries are empty:
	// "postgres://," is two hosts with the default each, as pgx reads it.
	// A port is set by a list of hosts (an empty port each), or by a
	// non-empty ":port" ("h:" sets none, as libpq and pgx read it).
	set["host"] = l.hosts > 1 || netloc != "" && !strings.HasPrefix(netloc, ":")
	set["port"] = l.port
	if l.query >= 0 {
		for part := range strings.SplitSeq(uri[l.query+1:], "&") {
			k, _, _ := strings.Cut(part, "=")
			if k, err := url.PathUnescape(k); err == nil {
				set[k] = true
			}
		}
	}
	return set
}

// uriEscape percent-encodes everything but letters, digits and -._~.
func uriEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// quoteConnValue quotes a conninfo value when needed.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsFunc(v, needsQuote) {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = strings.ReplaceAll(v, `'`, `\'`)
	return "'" + v + "'"
}

// needsQuote reports a character that a bare value cannot hold: a quote,
// a backslash, and anything but printable ASCII, since pgx ends a bare
// value at any Unicode space (\f, \v, \r, U+00A0, ...), not only libpq's.
func needsQuote(r rune) bool {
	return r <= ' ' || r >= 0x7f || r == '\'' || r == '\\'
}

// pgConfig parses the connection settings.
func pgConfig(o *options) (*pgsql.Config, error) {
	conninfo := connString(o)
	c, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		return nil, usagef("%s", parseConfigError(conninfo, err))
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
	attempts, ok := pgsql.ConnectAttempts(err)
	if !ok {
		return redact(err.Error())
	}
	var out []string
	for _, a := range attempts {
		if msg := connAttemptError(a); !slices.Contains(out, msg) {
			out = append(out, msg) // pgx tries TLS, then plain: once is enough
		}
	}
	return strings.Join(out, "\n")
}

// connAttemptError spells one failed address like libpq.
func connAttemptError(a pgsql.ConnectAttempt) string {
	if a.Addr == "" {
		return redact(a.Err.Error())
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
		return where + pe.Severity + ":  " + pe.Message
	case errors.As(a.Err, &errno) && socket:
		return where + strerror(errno) + "\n\tIs the server running locally and accepting connections on that socket?"
	case errors.As(a.Err, &errno) && errno == syscall.ECONNREFUSED:
		return where + strerror(errno) + "\n\tIs the server running on that host and accepting TCP/IP connections?"
	case errors.As(a.Err, &errno):
		return where + strerror(errno)
	}
	return where + redact(a.Err.Error())
}
