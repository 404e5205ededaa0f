package pgsql

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// This file is gbench's one PostgreSQL password redactor. Everything
// gbench prints that may hold a password goes through it:
//
//   - RedactConninfo shows a connection string itself (keyword/value or
//     URI) with its passwords hidden and every other setting as given;
//   - Redact hides passwords in any other text (an error from pgx or the
//     server, a note): those of the connection strings it is given,
//     wherever the text quotes them, and those the text spells itself as
//     a password setting (password=..., sslpassword = '...') or in a
//     URI's user information (scheme://user:secret@host);
//   - Config.Redact and Config.ErrorText do the same with the passwords
//     a Config connects with: its connection string's, and the one that
//     came from PGPASSWORD or the password file;
//   - ParseConfigError spells pgx's refusal of a connection string.
//
// All of them find passwords with the same reading of a connection
// string (secretSpans) and hide them as Redacted.

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
	msg = hideValues(conninfo, spans, msg)
	// Then any other piece of the message, two bytes or more, that occurs
	// in conninfo only where a hidden part is: pgx quotes pieces of its
	// input in its reasons, cut where its parser stopped and between
	// quotes of its own that may not pair with the input's ("unexpected
	// spaces found in ""?password=..."" for a user name that starts
	// with a quote).
	return hideInputPieces(conninfo, msg, spans)
}

// hideValues hides in msg the parts of conninfo at spans, as written,
// unquoted and percent-decoded.
func hideValues(conninfo string, spans []span, msg string) string {
	for _, sp := range spans {
		raw := conninfo[sp.a:sp.b]
		for _, v := range []string{raw, unquoteConnValue(raw), unescapeOr(raw)} {
			if v != "" {
				msg = strings.ReplaceAll(msg, v, Redacted)
			}
		}
	}
	return msg
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

// Redact hides passwords in text, a message that may quote connection
// settings: first every password of the connection strings in
// conninfos, wherever text quotes it whole (as written, unquoted or
// percent-decoded; ParseConfigError also hides the pieces that pgx's
// parser cuts from a connection string), then every password
// that text spells itself: the value of a password setting
// (keyword=value, blanks around '=' allowed, quoted or bare; a quoted
// value that does not end runs to the end of text) and the password of a
// URI's user information. A URI whose password holds an unescaped blank
// is only hidden whole when its connection string is in conninfos.
func Redact(text string, conninfos ...string) string {
	for _, c := range conninfos {
		text = hideValues(c, secretSpans(c), text)
	}
	return hideSpans(text, textSecretSpans(text))
}

// hideSpans replaces the spans, in order and not overlapping, with
// Redacted.
func hideSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	pos := 0
	for _, sp := range spans {
		b.WriteString(s[pos:sp.a] + Redacted)
		pos = sp.b
	}
	b.WriteString(s[pos:])
	return b.String()
}

// textSecretSpans finds, in order and merged, the passwords that free
// text spells: password settings and URI user information.
func textSecretSpans(text string) []span {
	var found []span
	// keyword=value: the keyword is the run of non-blanks (but '=') before
	// the '=' and its blanks, cut after a URI query's '?' or '&'; the
	// value is read as libpq reads one (nextSetting).
	for e := strings.IndexByte(text, '='); e >= 0; {
		ke := e
		for ke > 0 && isCSpace(text[ke-1]) {
			ke--
		}
		ks := ke
		for ks > 0 && !isCSpace(text[ks-1]) && text[ks-1] != '=' && text[ks-1] != '?' && text[ks-1] != '&' {
			ks--
		}
		if ks < ke && SecretKey(text[ks:ke]) {
			p, ok := nextSetting(text, ks)
			if ok && p.valEnd > p.valStart && text[p.valStart] != '\'' {
				// A bare value ends at a backquote too: pgx quotes a
				// connection string in backquotes.
				if q := strings.IndexByte(text[p.valStart:p.valEnd], '`'); q >= 0 {
					p.valEnd = p.valStart + q
				}
			}
			if ok && p.valEnd > p.valStart && unquoteConnValue(text[p.valStart:p.valEnd]) != "" {
				found = append(found, span{p.valStart, p.valEnd})
			} else if !ok && p.valStart > e && p.valStart < len(text) && text[p.valStart] == '\'' {
				found = append(found, span{p.valStart, len(text)}) // an unterminated quote
			}
		}
		next := strings.IndexByte(text[e+1:], '=')
		if next < 0 {
			break
		}
		e += 1 + next
	}
	// URIs: from the scheme before "://" to the next blank, backquote or
	// double quote (how pgx and gbench quote a connection string).
	for from := 0; ; {
		i := strings.Index(text[from:], "://")
		if i < 0 {
			break
		}
		i += from
		start := i
		for start > 0 && isSchemeChar(text[start-1]) {
			start--
		}
		end := i + 3
		for end < len(text) && !isCSpace(text[end]) && text[end] != '`' && text[end] != '"' {
			end++
		}
		for _, sp := range uriSecretSpans(text[start:end]) {
			found = append(found, span{start + sp.a, start + sp.b})
		}
		from = end
	}
	return mergeSpans(found)
}

// isSchemeChar reports a character of a URI scheme (RFC 3986).
func isSchemeChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '+' || c == '-' || c == '.'
}

// mergeSpans sorts spans and joins those that overlap or touch.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(x, y span) int { return x.a - y.a })
	var out []span
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.a <= out[n-1].b {
			out[n-1].b = max(out[n-1].b, sp.b)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// Redact is the package's Redact with the passwords c connects with: its
// connection string's, and the one PGPASSWORD or the password file gave
// (hidden wherever text holds it). A nil c hides what text spells only.
func (c *Config) Redact(text string) string {
	if c == nil {
		return Redact(text)
	}
	if pw := c.pg.Password; pw != "" { // one for every host (pgx's fallbacks share it)
		text = strings.ReplaceAll(text, pw, Redacted)
	}
	return Redact(text, c.conninfo)
}

// ErrorText spells a failed query or connection as pgbench prints it: a
// gbench Error as it is, a server error as "SEVERITY:  message", anything
// else as its text; each with the passwords hidden as c.Redact hides
// them (a nil c hides those the text spells).
func (c *Config) ErrorText(err error) string {
	if qe := (*Error)(nil); errors.As(err, &qe) {
		return c.Redact(qe.Error())
	}
	if pe, ok := AsServerError(err); ok {
		return c.Redact(fmt.Sprintf("%s:  %s", pe.Severity, pe.Message))
	}
	return c.Redact(err.Error())
}
