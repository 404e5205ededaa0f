package pgsql

import (
	"fmt"
	"net/url"
	"strings"
)

// This file reads and redacts connection strings as libpq spells them
// (keyword/value or URI) for the command line: the defaults pgbench's -h,
// -p, -U and dbname add, and the passwords gbench never prints.

// cSpace is what C's isspace accepts.
const cSpace = " \t\n\v\f\r"

// skip returns the index of the first byte of s from i on that ok refuses.
func skip(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// IsURI reports whether s is a postgres:// or postgresql:// URI rather
// than a keyword/value string.
func IsURI(s string) bool {
	return strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://")
}

// URIWithDefaults adds to a URI, as query parameters, the settings of
// defaults (host, port, user: -h, -p, -U) it does not set itself, so that
// the URI's own win as with libpq and pgx parses the URI as it is. The URI
// is read the way libpq reads it: the user information ends at the first
// '@' before a '/', hosts and ports are the comma-separated list before
// the path or query.
func URIWithDefaults(uri string, defaults map[string]string) string {
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
		// A query may end with one '&', which pgx (as libpq) ignores;
		// another after it would be an empty parameter, which it refuses.
		if i == len(uri)-1 || strings.HasSuffix(uri, "&") {
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

// QuoteConnValue quotes a conninfo value when needed.
func QuoteConnValue(v string) string {
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
