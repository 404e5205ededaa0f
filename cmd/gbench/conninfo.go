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

// uriQuery returns the index of the '?' that starts a URI's query, -1
// when it has none: the first outside the brackets of an IPv6 host, after
// the user information.
func uriQuery(uri string) int {
	start := strings.Index(uri, "://") + 3
	p := uri[start:]
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		start += i + 1
	}
	if i := outsideBrackets(uri[start:], "?"); i >= 0 {
		return start + i
	}
	return -1
}

// outsideBrackets is strings.IndexAny that skips [...] sections, as pgx
// reads an IPv6 host ("[::1]", even "[a?b]"); a '[' without its ']' is an
// ordinary character.
func outsideBrackets(s, chars string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			if j := strings.IndexByte(s[i:], ']'); j > 0 {
				i += j
				continue
			}
		}
		if strings.IndexByte(chars, s[i]) >= 0 {
			return i
		}
	}
	return -1
}

// uriKeys reports which of host, port and user a URI sets.
func uriKeys(uri string) map[string]bool {
	_, p, _ := strings.Cut(uri, "://")
	set := map[string]bool{}
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		user, _, _ := strings.Cut(p[:i], ":")
		set["user"] = user != ""
		p = p[i+1:]
	}
	netloc := p
	if i := outsideBrackets(p, "/?"); i >= 0 {
		netloc = p[:i]
	}
	// A list of hosts sets the host even when its entries are empty:
	// "postgres://," is two hosts with the default each, as pgx reads it.
	set["host"] = strings.Contains(netloc, ",") || netloc != "" && !strings.HasPrefix(netloc, ":")
	// A port is set by a host list, or by a non-empty ":port" ("h:" sets
	// none, as libpq and pgx read it). pgx splits the list at every comma,
	// inside brackets too ("[a,b]" is the hosts "a" and "b").
	hp := bracketless(netloc)
	_, port, _ := strings.Cut(hp, ":")
	set["port"] = strings.Contains(netloc, ",") || port != ""
	if i := outsideBrackets(p, "?"); i >= 0 {
		q := p[i+1:]
		for part := range strings.SplitSeq(q, "&") {
			k, _, _ := strings.Cut(part, "=")
			if k, err := url.PathUnescape(k); err == nil {
				set[k] = true
			}
		}
	}
	return set
}

// bracketless drops the [IPv6] addresses of a host list.
func bracketless(netloc string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(netloc, '[')
		j := strings.IndexByte(netloc, ']')
		if i < 0 || j < i {
			b.WriteString(netloc)
			return b.String()
		}
		b.WriteString(netloc[:i])
		netloc = netloc[j+1:]
	}
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
