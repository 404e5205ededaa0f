package pgsql

import (
	"fmt"
	"net/url"
	"regexp"
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

// Redacted replaces passwords in what gbench prints.
const Redacted = "xxxxx"

// span is a byte range [a, b) of a string.
type span struct{ a, b int }

// RedactConninfo returns a PostgreSQL connection string, keyword/value or
// URI, with its passwords replaced by "xxxxx" and the rest as given, so
// that a valid string still means the same settings. Where the string is
// too broken to tell (an unterminated quote, a missing '=', a '?' in a
// URI's user information), more is hidden: see secretSpans.
func RedactConninfo(s string) string {
	var b strings.Builder
	pos := 0
	for _, sp := range secretSpans(s) {
		// A quoted value stays quoted: pgx lets the next setting follow a
		// closing quote without a blank, which a bare value would swallow.
		hidden := Redacted
		if !IsURI(s) && s[sp.a] == '\'' && sp.b-sp.a >= 2 && s[sp.b-1] == '\'' {
			hidden = "'" + Redacted + "'"
		}
		b.WriteString(s[pos:sp.a] + hidden)
		pos = sp.b
	}
	b.WriteString(s[pos:])
	return b.String()
}

// secretSpans returns, in order, the parts of a connection string that
// hold passwords: the values of password settings (password, sslpassword,
// their misspellings); a URI's password, or its whole user information
// when that holds a '?' or '#'; and for a keyword/value string that
// cannot be read to its end, the unreadable rest when it mentions a
// password. Empty passwords are left alone.
func secretSpans(s string) []span {
	if IsURI(s) {
		return uriSecretSpans(s)
	}
	var out []span
	pos := 0
	for pos < len(s) {
		p, ok := nextSetting(s, pos)
		if !ok {
			if rest := s[pos:]; SecretKey(rest) {
				out = append(out, span{pos + len(rest) - len(strings.TrimLeft(rest, cSpace)), len(s)})
			}
			break
		}
		if SecretKey(s[p.keyStart:p.keyEnd]) && unquoteConnValue(s[p.valStart:p.valEnd]) != "" {
			out = append(out, span{p.valStart, p.valEnd})
		}
		pos = p.valEnd
	}
	return out
}

// setting is one keyword=value of a connection string, as byte offsets.
type setting struct{ keyStart, keyEnd, valStart, valEnd int }

// nextSetting reads the setting at s[pos:] the way libpq does: blanks, a
// keyword up to a blank or '=', blanks, '=', blanks, then a value quoted
// with ' (with \ escapes) or running to the next blank. ok is false at a
// syntax error, or when only blanks remain.
func nextSetting(s string, pos int) (p setting, ok bool) {
	i := skip(s, pos, isCSpace)
	p.keyStart = i
	i = skip(s, i, func(c byte) bool { return c != '=' && !isCSpace(c) })
	p.keyEnd = i
	i = skip(s, i, isCSpace)
	if i >= len(s) || s[i] != '=' || p.keyEnd == p.keyStart {
		return p, false
	}
	i = skip(s, i+1, isCSpace)
	p.valStart = i
	if i < len(s) && s[i] == '\'' {
		for i++; i < len(s) && s[i] != '\''; i++ {
			if s[i] == '\\' {
				i++
			}
		}
		if i >= len(s) {
			return p, false
		}
		p.valEnd = i + 1
		return p, true
	}
	for i < len(s) && !isCSpace(s[i]) {
		if s[i] == '\\' {
			i++
		}
		i++
	}
	p.valEnd = min(i, len(s))
	return p, true
}

func isCSpace(c byte) bool { return strings.IndexByte(cSpace, c) >= 0 }

// SecretKey reports whether text names a password: password, sslpassword
// and their misspellings are all hidden (passfile, a path, is not).
func SecretKey(text string) bool {
	k := strings.ToLower(text)
	if d, err := url.QueryUnescape(k); err == nil {
		k = strings.ToLower(d)
	}
	return k != "passfile" && (strings.Contains(k, "pass") || strings.Contains(k, "pwd"))
}

// uriSecretSpans finds the passwords of a postgres:// URI. Its user
// information ends at the last '@' before the path, so that a password
// holding an unescaped '@' is hidden whole; when it holds a '?' or '#' it
// is hidden whole, user name included. The values of password parameters
// are hidden too.
func uriSecretSpans(s string) []span {
	var out []span
	start := strings.Index(s, "://") + 3
	end := len(s)
	if i := strings.IndexByte(s[start:], '/'); i >= 0 {
		end = start + i
	}
	rest := start
	if at := strings.LastIndexByte(s[start:end], '@'); at >= 0 {
		userinfo := s[start : start+at]
		colon := strings.IndexByte(userinfo, ':')
		switch {
		case strings.ContainsAny(userinfo, "?#"):
			out = append(out, span{start, start + at})
		case colon >= 0 && colon < len(userinfo)-1:
			out = append(out, span{start + colon + 1, start + at})
		}
		rest = start + at + 1
	}
	// The query starts where pgx's grammar says (layoutURI). Where that
	// grammar fails, pgx refuses the string and no reading is sure; and
	// where the query would start inside what is hidden as the user
	// information (two '@'), that reading is not pgx's either: then the
	// parameters after the first '?' past the user information are hidden.
	l := layoutURI(s)
	queries := []int{l.query}
	if !l.valid || l.query >= 0 && l.query < rest {
		queries[0] = -1
		if q := strings.IndexByte(s[rest:], '?'); q >= 0 {
			queries[0] = rest + q
		}
	}
	for _, q := range queries {
		if q < 0 {
			continue
		}
		pos := q + 1
		for _, part := range strings.Split(s[pos:], "&") {
			if k, v, ok := strings.Cut(part, "="); ok && SecretKey(k) && v != "" {
				out = append(out, span{pos + len(k) + 1, pos + len(part)})
			}
			pos += len(part) + 1
		}
	}
	return out
}

// ParseConfigError spells a connection string pgx could not parse:
// pgx's reason, after the string as RedactConninfo shows it (pgx's own
// redaction is best effort and misses, for instance, "password = x" and
// quoted passwords holding \'). Whatever of the hidden parts pgx quotes in
// its reason is hidden too.
func ParseConfigError(conninfo string, err error) string {
	reason, ok := ConfigErrorReason(err)
	if !ok {
		return hideSecrets(conninfo, err.Error())
	}
	return "cannot parse `" + RedactConninfo(conninfo) + "`: " + hideSecrets(conninfo, reason)
}

// hideSecrets hides in msg the hidden parts of conninfo, as written and
// unquoted or percent-decoded, and any piece of msg that conninfo holds
// only where its hidden parts overlap it.
func hideSecrets(conninfo, msg string) string {
	spans := secretSpans(conninfo)
	for _, sp := range spans {
		raw := conninfo[sp.a:sp.b]
		for _, v := range []string{raw, unquoteConnValue(raw), unescapeOr(raw)} {
			if v != "" {
				msg = strings.ReplaceAll(msg, v, Redacted)
			}
		}
	}
	// Then any other piece of the message, two bytes or more, that occurs
	// in conninfo only where a hidden part is: pgx quotes pieces of its
	// input in its reasons, cut where its parser stopped and between
	// quotes of its own that may not pair with the input's ("unexpected
	// spaces found in ""?password=..."" for a user name that starts
	// with a quote).
	return hideInputPieces(conninfo, msg, spans)
}

// hideInputPieces replaces in msg every longest piece (two bytes or more)
// that occurs in s, when each of its longest occurrences in s overlaps a
// span. It takes time len(msg) × len(s): every suffix of msg is matched
// against every suffix of s, one row of common prefix lengths at a time.
func hideInputPieces(s, msg string, spans []span) string {
	if len(spans) == 0 || len(msg) < 2 {
		return msg
	}
	inSpan := make([]int, len(s)+1) // inSpan[j]: bytes of s[:j] inside a span
	for j := 0; j < len(s); j++ {
		in := 0
		for _, sp := range spans {
			if sp.a <= j && j < sp.b {
				in = 1
				break
			}
		}
		inSpan[j+1] = inSpan[j] + in
	}
	longest := make([]int, len(msg)) // the longest piece at i, 0 when it is not hidden
	next, row := make([]int, len(s)+1), make([]int, len(s)+1)
	for i := len(msg) - 1; i >= 0; i-- {
		n, hidden := 0, true
		for j := len(s) - 1; j >= 0; j-- {
			row[j] = 0
			if msg[i] == s[j] {
				row[j] = next[j+1] + 1
			}
			switch l := row[j]; {
			case l > n:
				n, hidden = l, inSpan[j+l] > inSpan[j]
			case l == n && l > 0:
				hidden = hidden && inSpan[j+l] > inSpan[j]
			}
		}
		if n >= 2 && hidden {
			longest[i] = n
		}
		next, row = row, next
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		if n := longest[i]; n > 0 {
			b.WriteString(Redacted)
			i += n
			continue
		}
		b.WriteByte(msg[i])
		i++
	}
	return b.String()
}

func unescapeOr(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// unquoteConnValue undoes a value's quotes and backslash escapes.
func unquoteConnValue(v string) string {
	v = strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'")
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

var (
	rePassword    = regexp.MustCompile(`password=('(?:[^'\\]|\\.)*'|[^\s]+)`)
	reURIPassword = regexp.MustCompile(`(://[^:/@\s]*):[^@/\s]*@`)
)

// RedactMessage hides passwords in a message that quotes connection settings.
func RedactMessage(msg string) string {
	msg = rePassword.ReplaceAllString(msg, "password=xxxxx")
	return reURIPassword.ReplaceAllString(msg, "$1:xxxxx@")
}
