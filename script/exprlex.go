package script

import (
	"io"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the expression lexer.
const (
	tokInt lexer.TokenType = -(iota + 2)
	tokMaxIntPlusOne
	tokFloat
	tokVar
	tokIdent
	tokKeyword
	tokOp
	tokString // gbench: 'text', '' for a quote
)

// exprKeywords are matched case-insensitively on whole words, as pgbench's
// flex scanner does; their token value is the lower-case word.
var exprKeywords = map[string]bool{
	"and": true, "or": true, "not": true, "is": true, "isnull": true, "notnull": true,
	"case": true, "when": true, "then": true, "else": true, "end": true,
	"true": true, "false": true, "null": true,
}

// exprLexDef is the participle lexer definition for pgbench expressions.
type exprLexDef struct{}

func (exprLexDef) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": lexer.EOF, "Int": tokInt, "MaxIntPlusOne": tokMaxIntPlusOne, "Float": tokFloat,
		"Var": tokVar, "Ident": tokIdent, "Keyword": tokKeyword, "Op": tokOp, "String": tokString,
	}
}

func (d exprLexDef) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (exprLexDef) LexString(filename string, s string) (lexer.Lexer, error) {
	return &exprLexer{src: s, pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}, nil
}

// lexError is an "unexpected character" found by the lexer.
type lexError struct {
	pos lexer.Position
	msg string
}

func (e *lexError) Error() string            { return e.msg }
func (e *lexError) Message() string          { return e.msg }
func (e *lexError) Position() lexer.Position { return e.pos }

// exprLexer scans one expression; positions count bytes from its start.
type exprLexer struct {
	src string
	off int
	pos lexer.Position
}

// advance moves over n bytes, tracking lines for continuation newlines.
func (l *exprLexer) advance(n int) {
	for _, c := range []byte(l.src[l.off : l.off+n]) {
		if c == '\n' {
			l.pos.Line++
			l.pos.Column = 1
		} else {
			l.pos.Column++
		}
	}
	l.off += n
	l.pos.Offset = l.off
}

// skipSpace skips blanks and backslash-newline continuations.
func (l *exprLexer) skipSpace() {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			l.advance(1)
		case c == '\\' && strings.HasPrefix(l.src[l.off:], "\\\n"):
			l.advance(2)
		case c == '\\' && strings.HasPrefix(l.src[l.off:], "\\\r\n"):
			l.advance(3)
		default:
			return
		}
	}
}

func (l *exprLexer) Next() (lexer.Token, error) {
	l.skipSpace()
	start := l.pos
	if l.off >= len(l.src) || l.src[l.off] == '\n' {
		return lexer.EOFToken(start), nil
	}
	typ, n := scanExprToken(l.src[l.off:])
	if n == 0 {
		return lexer.Token{}, &lexError{pos: start, msg: badCharacter(l.src[l.off:])}
	}
	val := l.src[l.off : l.off+n]
	if typ == tokIdent && exprKeywords[strings.ToLower(val)] {
		typ, val = tokKeyword, strings.ToLower(val)
	}
	l.advance(n)
	return lexer.Token{Type: typ, Value: val, Pos: start}, nil
}

// scanExprToken returns the type and length of the token at the start of s
// using flex's longest-match rule; n is 0 for an unexpected character.
func scanExprToken(s string) (lexer.TokenType, int) {
	c := s[0]
	switch {
	case isAlpha(c):
		n := 1
		for n < len(s) && isAlnum(s[n]) {
			n++
		}
		return tokIdent, n
	case c == ':':
		n := 1
		for n < len(s) && isAlnum(s[n]) {
			n++
		}
		if n == 1 {
			return 0, 0
		}
		return tokVar, n
	case isDigit(c) || c == '.':
		return scanNumber(s)
	case c == '\'':
		if n := scanString(s); n > 0 {
			return tokString, n
		}
		return 0, 0
	}
	for _, op := range [...]string{"||", "<>", "!=", "<=", ">=", "<<", ">>"} {
		if strings.HasPrefix(s, op) {
			return tokOp, 2
		}
	}
	if strings.IndexByte("+-*/%=<>|&#~(),", c) >= 0 {
		return tokOp, 1
	}
	return 0, 0
}

// scanNumber scans an integer or a double literal.
func scanNumber(s string) (lexer.TokenType, int) {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	intLen := n
	if n < len(s) && s[n] == '.' {
		n++
		frac := n
		for n < len(s) && isDigit(s[n]) {
			n++
		}
		if intLen == 0 && n == frac {
			return 0, 0 // a lone "."
		}
	}
	n += exponentLen(s[n:])
	switch {
	case n > intLen:
		return tokFloat, n
	case s[:n] == "9223372036854775808":
		return tokMaxIntPlusOne, n
	}
	return tokInt, n
}

// exponentLen returns the length of an exponent part "e[+-]digits", or 0.
func exponentLen(s string) int {
	if len(s) < 2 || (s[0] != 'e' && s[0] != 'E') {
		return 0
	}
	n := 1
	if s[n] == '+' || s[n] == '-' {
		n++
	}
	d := n
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n == d {
		return 0
	}
	return n
}

// isAlpha matches pgbench's [a-zA-Z\200-\377_].
func isAlpha(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

// isAlnum matches pgbench's [A-Za-z\200-\377_0-9].
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }
