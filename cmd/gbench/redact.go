package main

import (
	"net/url"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/cnum"
)

// redacted replaces passwords in what gbench prints.
const redacted = "xxxxx"

// span is a byte range [a, b) of a string.
type span struct{ a, b int }

// redactConninfo returns a PostgreSQL connection string, keyword/value or
// URI, with its passwords replaced by "xxxxx" and the rest as given, so
// that a valid string still means the same settings. Where the string is
// too broken to tell (an unterminated quote, a missing '=', a '?' in a
// URI's user information), more is hidden: see secretSpans.
func redactConninfo(s string) string {
	var b strings.Builder
	pos := 0
	for _, sp := range secretSpans(s) {
		// A quoted value stays quoted: pgx lets the next setting follow a
		// closing quote without a blank, which a bare value would swallow.
		hidden := redacted
		if !isURI(s) && s[sp.a] == '\'' && sp.b-sp.a >= 2 && s[sp.b-1] == '\'' {
			hidden = "'" + redacted + "'"
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
	if isURI(s) {
		return uriSecretSpans(s)
	}
	var out []span
	pos := 0
	for pos < len(s) {
		p, ok := nextSetting(s, pos)
		if !ok {
			if rest := s[pos:]; secretKey(rest) {
				out = append(out, span{pos + len(rest) - len(strings.TrimLeft(rest, cSpace)), len(s)})
			}
			break
		}
		if secretKey(s[p.keyStart:p.keyEnd]) && unquoteConnValue(s[p.valStart:p.valEnd]) != "" {
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

// secretKey reports whether text names a password: password, sslpassword
// and their misspellings are all hidden (passfile, a path, is not).
func secretKey(text string) bool {
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
			if k, v, ok := strings.Cut(part, "="); ok && secretKey(k) && v != "" {
				out = append(out, span{pos + len(k) + 1, pos + len(part)})
			}
			pos += len(part) + 1
		}
	}
	return out
}

// redactArg hides the passwords of one command-line argument: a
// PostgreSQL connection string or URI, a Redis URL, or an option with one
// of those as its value (--pg=..., --redis=...).
func redactArg(a string) string {
	if name, value, ok := strings.Cut(a, "="); ok && isOptionName(name) {
		return name + "=" + redactValue(value)
	}
	return redactValue(a)
}

// isOptionName reports whether s is spelled like a long option: "--"
// and letters, digits and dashes. A value such as "- password=x" is not.
func isOptionName(s string) bool {
	name, ok := strings.CutPrefix(s, "--")
	if !ok || name == "" {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// redactValue hides the passwords of a connection string or URL.
func redactValue(a string) string {
	for _, scheme := range []string{"redis://", "rediss://", "unix://"} {
		if hasFoldPrefix(a, scheme) {
			return resp.RedactURL(a)
		}
	}
	if isURI(a) || strings.Contains(a, "=") {
		return redactConninfo(a)
	}
	return a
}

// parseConfigError spells a connection string pgx could not parse:
// pgx's reason, after the string as redactConninfo shows it (pgx's own
// redaction is best effort and misses, for instance, "password = x" and
// quoted passwords holding \'). Whatever of the hidden parts pgx quotes in
// its reason is hidden too.
func parseConfigError(conninfo string, err error) string {
	reason, ok := pgsql.ConfigErrorReason(err)
	if !ok {
		return hideSecrets(conninfo, err.Error())
	}
	return "cannot parse `" + redactConninfo(conninfo) + "`: " + hideSecrets(conninfo, reason)
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
				msg = strings.ReplaceAll(msg, v, redacted)
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
			b.WriteString(redacted)
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

// cSpace is what C's isspace accepts (cnum.Space).
const cSpace = cnum.Space

// skip returns the index of the first byte of s from i on that ok refuses.
func skip(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hasFoldPrefix reports whether s starts with prefix, ignoring ASCII case.
func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
