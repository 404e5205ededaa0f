package script

import "strings"

// rawCommand is one command cut out of a script by the scanner: an SQL
// command (text to send) or a meta-command (words after a backslash).
type rawCommand struct {
	meta bool
	off  int    // offset of the first byte (SQL) or of the backslash (meta)
	text string // SQL text, pgbench's "lines"
	end  int    // meta: offset just past the command's last byte (before the newline)
}

// scanner splits a script into commands the way pgbench does with psql's
// lexer: SQL runs until a semicolon outside quotes, comments and
// parentheses (and outside BEGIN ... END of a CREATE FUNCTION body), "\;"
// and "\:" put a literal ";" or ":" into the SQL, and any other backslash
// outside quotes starts a meta-command that runs to the end of the line.
// Leading whitespace and leading "--" comments of a command are dropped;
// comments inside it are kept, as pgbench 15 sends them.
type scanner struct {
	src        string
	pos        int
	buf        []byte
	start      int // offset of the first byte put into buf
	parenDepth int
	beginDepth int
	idCount    int
	idFirst    [4]byte // first letters of create/or/replace/function/procedure
}

// next returns the next command; ok is false at the end of the script.
func (s *scanner) next() (cmd rawCommand, ok bool) {
	s.buf, s.start = s.buf[:0], -1
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case c == '\\' && s.pos+1 < len(s.src) && (s.src[s.pos+1] == ';' || s.src[s.pos+1] == ':'):
			if s.src[s.pos+1] == ';' {
				s.idCount = 0
			}
			s.emit(s.pos+1, 1)
			s.pos += 2
		case c == '\\':
			if sql, ok := s.flush(); ok {
				return sql, true // the backslash is scanned on the next call
			}
			return s.meta(), true
		case c == ';':
			s.emit(s.pos, 1)
			s.pos++
			if s.parenDepth == 0 && s.beginDepth == 0 {
				s.idCount = 0
				if sql, ok := s.flush(); ok {
					return sql, true
				}
			}
		default:
			s.token()
		}
	}
	// SQL that ends at a backslash or at the end of the script keeps all its
	// trailing newlines: pgbench 15 sends them (its --debug log hides one,
	// since pg_log strips one final newline from every message).
	return s.flush()
}

// flush returns the buffered SQL as a command unless it is only blanks and
// "--" comments.
func (s *scanner) flush() (rawCommand, bool) {
	text := string(s.buf)
	start := s.start
	s.buf, s.start = s.buf[:0], -1
	trimmed := skipSQLComments(text)
	if trimmed == "" {
		return rawCommand{}, false
	}
	return rawCommand{off: start + len(text) - len(trimmed), text: trimmed}, true
}

// skipSQLComments drops leading whitespace and "--" comments, as pgbench's
// skip_sql_comments does.
func skipSQLComments(s string) string {
	for {
		switch {
		case s != "" && isCSpace(s[0]):
			s = s[1:]
		case strings.HasPrefix(s, "--"):
			i := strings.IndexByte(s, '\n')
			if i < 0 {
				return ""
			}
			s = s[i+1:]
		default:
			return s
		}
	}
}

// emit appends src[off:off+n] to the SQL buffer.
func (s *scanner) emit(off, n int) {
	if s.start < 0 {
		s.start = off
	}
	s.buf = append(s.buf, s.src[off:off+n]...)
}

// echo appends the next n bytes to the SQL buffer and moves past them.
func (s *scanner) echo(n int) {
	s.emit(s.pos, n)
	s.pos += n
}

// token scans one lexical element of SQL outside quotes.
func (s *scanner) token() {
	rest := s.src[s.pos:]
	c := rest[0]
	switch {
	case isSQLSpace(c):
		n := 1
		for n < len(rest) && isSQLSpace(rest[n]) {
			n++
		}
		s.blank(n)
	case strings.HasPrefix(rest, "--"):
		n := strings.IndexAny(rest, "\n\r")
		if n < 0 {
			n = len(rest)
		}
		s.blank(n)
	case strings.HasPrefix(rest, "/*"):
		s.comment()
	case c == '\'':
		s.quoted(1, false)
	case (c == 'e' || c == 'E') && len(rest) > 1 && rest[1] == '\'':
		s.quoted(2, true)
	case strings.IndexByte("bBxXnN", c) >= 0 && len(rest) > 1 && rest[1] == '\'':
		s.quoted(2, false)
	case (c == 'u' || c == 'U') && len(rest) > 2 && rest[1] == '&' && rest[2] == '\'':
		s.quoted(3, false)
	case (c == 'u' || c == 'U') && len(rest) > 2 && rest[1] == '&' && rest[2] == '"':
		s.quotedIdent(3)
	case c == '"':
		s.quotedIdent(1)
	case c == '$':
		s.dollar()
	case c == ':':
		s.colon()
	case c == '(':
		s.parenDepth++
		s.echo(1)
	case c == ')':
		if s.parenDepth > 0 {
			s.parenDepth--
		}
		s.echo(1)
	case isAlpha(c):
		s.identifier()
	case isDigit(c):
		n := 1
		for n < len(rest) && (isAlnum(rest[n]) || rest[n] == '$') {
			n++
		}
		s.echo(n)
	default:
		s.echo(1)
	}
}

func isSQLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// blank handles whitespace and "--" comments: dropped at the start of a
// command, kept inside it.
func (s *scanner) blank(n int) {
	if s.start < 0 {
		s.pos += n
		return
	}
	s.echo(n)
}

// comment scans a possibly nested /* */ comment; an unterminated comment
// runs to the end of the script.
func (s *scanner) comment() {
	depth := 0
	s.echo(2)
	for s.pos < len(s.src) {
		rest := s.src[s.pos:]
		switch {
		case strings.HasPrefix(rest, "/*"):
			depth++
			s.echo(2)
		case strings.HasPrefix(rest, "*/"):
			s.echo(2)
			if depth == 0 {
				return
			}
			depth--
		default:
			s.echo(1)
		}
	}
}

// quoted scans a string literal whose opening quote ends at prefix bytes;
// escapes is true for E” strings where backslash escapes a character.
// Adjacent literals separated by a newline continue the string, as in SQL.
func (s *scanner) quoted(prefix int, escapes bool) {
	s.echo(prefix)
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		switch {
		case escapes && c == '\\' && s.pos+1 < len(s.src):
			s.echo(2)
		case c == '\'' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '\'':
			s.echo(2)
		case c == '\'':
			s.echo(1)
			if n := quoteContinuation(s.src[s.pos:]); n > 0 {
				s.echo(n)
				continue
			}
			return
		default:
			s.echo(1)
		}
	}
}

// quoteContinuation returns the length of whitespace containing a newline
// followed by a quote, which continues a string literal, or 0.
func quoteContinuation(rest string) int {
	n, newline := 0, false
	for n < len(rest) {
		switch {
		case isSQLSpace(rest[n]):
			newline = newline || rest[n] == '\n' || rest[n] == '\r'
			n++
		case strings.HasPrefix(rest[n:], "--"):
			i := strings.IndexAny(rest[n:], "\n\r")
			if i < 0 {
				return 0
			}
			n += i
		case rest[n] == '\'' && newline:
			return n + 1
		default:
			return 0
		}
	}
	return 0
}

// quotedIdent scans a double-quoted identifier.
func (s *scanner) quotedIdent(prefix int) {
	s.echo(prefix)
	for s.pos < len(s.src) {
		if s.src[s.pos] == '"' {
			if s.pos+1 < len(s.src) && s.src[s.pos+1] == '"' {
				s.echo(2)
				continue
			}
			s.echo(1)
			return
		}
		s.echo(1)
	}
}

// dollar scans a $tag$ ... $tag$ string, or a lone "$" or "$1".
func (s *scanner) dollar() {
	rest := s.src[s.pos:]
	n := 1
	if n < len(rest) && isAlpha(rest[n]) {
		for n < len(rest) && isAlnum(rest[n]) {
			n++
		}
	}
	if n >= len(rest) || rest[n] != '$' {
		s.echo(1) // not a delimiter: "$" then whatever follows
		return
	}
	delim := rest[:n+1]
	s.echo(len(delim))
	end := strings.Index(s.src[s.pos:], delim)
	if end < 0 {
		s.echo(len(s.src) - s.pos)
		return
	}
	s.echo(end + len(delim))
}

// colon scans ":", "::", ":name", ":'name'" and ':"name"' so that a quote
// after a colon does not start a literal, as in psql's lexer.
func (s *scanner) colon() {
	rest := s.src[s.pos:]
	if strings.HasPrefix(rest, "::") || strings.HasPrefix(rest, ":=") {
		s.echo(2)
		return
	}
	n := 1
	for n < len(rest) && isAlnum(rest[n]) {
		n++
	}
	if n == 1 && len(rest) > 2 && (rest[1] == '\'' || rest[1] == '"') {
		q := rest[1]
		m := 2
		for m < len(rest) && isAlnum(rest[m]) {
			m++
		}
		if m > 2 && m < len(rest) && rest[m] == q {
			n = m + 1
		}
	}
	s.echo(n)
}

// identifier scans an identifier and tracks BEGIN ... END inside CREATE
// [OR REPLACE] FUNCTION/PROCEDURE statements, where semicolons do not end
// the statement.
func (s *scanner) identifier() {
	rest := s.src[s.pos:]
	n := 1
	for n < len(rest) && (isAlnum(rest[n]) || rest[n] == '$') {
		n++
	}
	word := strings.ToLower(rest[:n])
	if s.idCount == 0 {
		s.idFirst = [4]byte{}
	}
	switch word {
	case "create", "function", "procedure", "or", "replace":
		if s.idCount < len(s.idFirst) {
			s.idFirst[s.idCount] = word[0]
		}
	}
	s.idCount++
	f := s.idFirst
	if f[0] == 'c' && (f[1] == 'f' || f[1] == 'p' || f[1] == 'o' && f[2] == 'r' && (f[3] == 'f' || f[3] == 'p')) && s.parenDepth == 0 {
		switch {
		case word == "begin":
			s.beginDepth++
		case word == "case" && s.beginDepth >= 1:
			s.beginDepth++
		case word == "end" && s.beginDepth > 0:
			s.beginDepth--
		}
	}
	s.echo(n)
}

// meta scans a meta-command from the backslash to the end of its line,
// following backslash-newline continuations.
func (s *scanner) meta() rawCommand {
	start := s.pos
	i := s.pos + 1
	for i < len(s.src) {
		switch {
		case s.src[i] == '\\' && strings.HasPrefix(s.src[i:], "\\\n"):
			i += 2
		case s.src[i] == '\\' && strings.HasPrefix(s.src[i:], "\\\r\n"):
			i += 3
		case s.src[i] == '\n':
			s.pos = i + 1
			return rawCommand{meta: true, off: start, end: i}
		default:
			i++
		}
	}
	s.pos = len(s.src)
	return rawCommand{meta: true, off: start, end: len(s.src)}
}
