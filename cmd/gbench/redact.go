package main

import (
	"errors"
	"net/url"
	"strings"

	"github.com/gbench/gbench/engine/resp"
	"github.com/jackc/pgx/v5/pgconn"
)

// redacted replaces passwords in what gbench prints.
const redacted = "xxxxx"

// redactConninfo returns a PostgreSQL connection string, keyword/value or
// URI, with its passwords replaced by "xxxxx" and the rest as given, so
// that a valid string still means the same settings. Where the string is
// too broken to tell (an unterminated quote, a missing '='), what follows
// the last sound setting is hidden too when it mentions a password.
func redactConninfo(s string) string {
	if isURI(s) {
		return redactURI(s)
	}
	var b strings.Builder
	pos := 0
	for pos < len(s) {
		p, ok := nextSetting(s, pos)
		if !ok {
			rest := s[pos:]
			if secretKey(rest) {
				rest = strings.Repeat(" ", len(rest)-len(strings.TrimLeft(rest, cSpace))) + redacted
			}
			b.WriteString(rest)
			break
		}
		if secretKey(s[p.keyStart:p.keyEnd]) && unquoteConnValue(s[p.valStart:p.valEnd]) != "" {
			b.WriteString(s[pos:p.valStart] + redacted)
		} else {
			b.WriteString(s[pos:p.valEnd])
		}
		pos = p.valEnd
	}
	return b.String()
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

// redactURI hides the password of a postgres:// URI's user information
// and the values of its password parameters. The user information ends at
// the last '@' before the path, so that a password holding an unescaped
// '@' is hidden whole; when it holds a '?' nothing of it is shown.
func redactURI(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	authority, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	var b strings.Builder
	b.WriteString(scheme + "://")
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo := authority[:at]
		user, _, hasPassword := strings.Cut(userinfo, ":")
		switch {
		case strings.ContainsAny(userinfo, "?#"):
			b.WriteString(redacted + "@")
		case hasPassword && !strings.HasSuffix(userinfo, ":"):
			b.WriteString(user + ":" + redacted + "@")
		default:
			b.WriteString(userinfo + "@")
		}
		authority = authority[at+1:]
	}
	hostsAndPath := authority + path
	base, query, hasQuery := strings.Cut(hostsAndPath, "?")
	b.WriteString(base)
	if hasQuery {
		b.WriteString("?" + redactQuery(query))
	}
	return b.String()
}

// redactQuery hides the values of a URI's password parameters.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, part := range parts {
		if k, v, ok := strings.Cut(part, "="); ok && secretKey(k) && v != "" {
			parts[i] = k + "=" + redacted
		}
	}
	return strings.Join(parts, "&")
}

// redactArg hides the passwords of one command-line argument: a
// PostgreSQL connection string or URI, a Redis URL, or an option with one
// of those as its value (--pg=..., --redis=...).
func redactArg(a string) string {
	if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(name, "-") {
		return name + "=" + redactArg(value)
	}
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
// quoted passwords holding \'). Any password still found in the reason is
// hidden too.
func parseConfigError(conninfo string, err error) string {
	var pe *pgconn.ParseConfigError
	if !errors.As(err, &pe) {
		return hideSecrets(conninfo, err.Error())
	}
	bare := *pe
	bare.ConnString = ""
	reason := strings.TrimPrefix(bare.Error(), "cannot parse ``: ")
	return "cannot parse `" + redactConninfo(conninfo) + "`: " + hideSecrets(conninfo, reason)
}

// hideSecrets replaces in msg every password value found in conninfo.
func hideSecrets(conninfo, msg string) string {
	for _, pw := range secrets(conninfo) {
		if pw != "" && pw != redacted {
			msg = strings.ReplaceAll(msg, pw, redacted)
		}
	}
	return msg
}

// secrets returns the password values of a connection string, raw and
// unquoted (or percent-decoded), as far as it can be read.
func secrets(s string) []string {
	var out []string
	if isURI(s) {
		_, rest, _ := strings.Cut(s, "://")
		authority, _, _ := strings.Cut(rest, "/")
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			if _, pw, ok := strings.Cut(authority[:at], ":"); ok {
				out = append(out, pw, unescapeOr(pw))
			}
		}
		if _, q, ok := strings.Cut(s, "?"); ok {
			for part := range strings.SplitSeq(q, "&") {
				if k, v, ok := strings.Cut(part, "="); ok && secretKey(k) {
					out = append(out, v, unescapeOr(v))
				}
			}
		}
		return out
	}
	for pos := 0; pos < len(s); {
		p, ok := nextSetting(s, pos)
		if !ok {
			break
		}
		if secretKey(s[p.keyStart:p.keyEnd]) {
			v := s[p.valStart:p.valEnd]
			out = append(out, v, unquoteConnValue(v))
		}
		pos = p.valEnd
	}
	return out
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
