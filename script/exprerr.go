package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Expression errors are reported the way pgbench's flex scanner and bison
// parser find them: from left to right, the first wins. The scanner
// rejects a character outside the language, an identifier that names no
// function, and a number literal out of range as soon as it reads the
// token; the parser rejects a token that cannot continue the expression
// when it reads it, and a call with the wrong number of arguments when it
// reads the call's ")". gbench's grammar (participle) only knows syntax, so
// firstExprError scans the tokens for the other errors and lets a syntax
// error that comes before them win.

// exprSyntaxError is an error in an expression: pgbench's words (msg) and
// gbench's explanation (detail) at a position within the expression.
type exprSyntaxError struct {
	pos    lexer.Position
	msg    string
	detail string
	// end is the offset just after the token where pgbench finds the
	// error: it goes on scanning from there (see lastBadCharacter).
	end int
}

func (e *exprSyntaxError) Error() string { return e.msg }

// syntaxErrorAt is pgbench's "syntax error" at an unexpected token.
func syntaxErrorAt(pos lexer.Position, tok string) error {
	return &exprSyntaxError{pos: pos, end: pos.Offset + len(tok), msg: "syntax error", detail: fmt.Sprintf("unexpected %q", tok)}
}

// firstExprError returns the first error of text that is not a plain
// syntax error, unless a syntax error comes before it; nil when there is
// none (text may still have a syntax error).
func firstExprError(text string) *exprSyntaxError {
	se, cut := scanExprErrors(text)
	if se == nil {
		return nil
	}
	// A syntax error in the tokens before the cut is found first.
	if _, err := exprParser.ParseString("", text[:cut]); err != nil {
		var pe participle.Error
		if errors.As(err, &pe) && pe.Position().Offset < cut {
			return participleError(text[:cut], err)
		}
	}
	return se
}

// lastBadCharacter returns the last character of text after offset from
// that the expression scanner rejects, or nil. When pgbench finds an error
// it scans the rest of the line to print it, and an unexpected character
// found on the way is reported instead, so the last one wins.
func lastBadCharacter(text string, from int) *exprSyntaxError {
	var last *exprSyntaxError
	pos := positionOf(text, from)
	for pos.Offset < len(text) {
		rest := text[pos.Offset:]
		n := blankLen(rest)
		if n == 0 {
			if rest[0] == '\n' {
				break
			}
			if _, n = scanExprToken(rest); n == 0 {
				last = &exprSyntaxError{pos: pos, msg: badCharacter(rest)}
				n = 1
			}
		}
		pos = advancePos(text, pos, n)
	}
	return last
}

// blankLen returns the length of the blanks or continuation at the start
// of s, 0 when it starts with something else.
func blankLen(s string) int {
	switch c := s[0]; {
	case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
		return 1
	}
	return continuationLen(s)
}

// positionOf returns the position of byte offset off of text.
func positionOf(text string, off int) lexer.Position {
	return advancePos(text, lexer.Position{Line: 1, Column: 1}, off)
}

// advancePos moves pos over the next n bytes of text.
func advancePos(text string, pos lexer.Position, n int) lexer.Position {
	for _, c := range []byte(text[pos.Offset : pos.Offset+n]) {
		if c == '\n' {
			pos.Line, pos.Column = pos.Line+1, 1
		} else {
			pos.Column++
		}
	}
	pos.Offset += n
	return pos
}

// callFrame is an open parenthesis met by scanExprErrors.
type callFrame struct {
	name   string // "" for a parenthesis that is not a call
	fn     funcID
	pos    lexer.Position
	commas int
	empty  bool // nothing seen since "("
}

// scanExprErrors finds the first scanner error or wrong argument count in
// text. cut is where pgbench finds it: the offset just before the token
// for a scanner error, just after the ")" for an argument count.
func scanExprErrors(text string) (se *exprSyntaxError, cut int) {
	var frames []callFrame
	pos := lexer.Position{Line: 1, Column: 1}
	for pos.Offset < len(text) {
		rest := text[pos.Offset:]
		if n := blankLen(rest); n > 0 {
			pos = advancePos(text, pos, n)
			continue
		}
		if rest[0] == '\n' {
			break
		}
		typ, n := scanExprToken(rest)
		if n == 0 {
			return &exprSyntaxError{pos: pos, end: pos.Offset + 1, msg: badCharacter(rest)}, pos.Offset
		}
		tok := rest[:n]
		if len(frames) > 0 && tok != ")" {
			frames[len(frames)-1].empty = false
		}
		switch {
		case typ == tokIdent && !exprKeywords[strings.ToLower(tok)]:
			fn, ok := lookupFunc(tok)
			if !ok {
				// Found when the parser takes the name, after reading it.
				se := unknownFunction(pos, tok, rest[n:])
				se.end = pos.Offset + n
				return se, se.end
			}
			if after := strings.TrimLeft(rest[n:], " \t\r\f\v"); strings.HasPrefix(after, "(") {
				frames = append(frames, callFrame{name: tok, fn: fn, pos: pos, empty: true})
				n = len(rest) - len(after) + 1
			}
		case typ == tokInt:
			if _, err := strconv.ParseInt(tok, 10, 64); err != nil {
				return &exprSyntaxError{pos: pos, end: pos.Offset + n, msg: fmt.Sprintf("bigint constant overflow (%s)", tok)}, pos.Offset
			}
		case typ == tokFloat:
			if _, _, erange := parseCDouble([]byte(tok)); erange {
				return &exprSyntaxError{pos: pos, end: pos.Offset + n, msg: fmt.Sprintf("double constant overflow (%s)", tok)}, pos.Offset
			}
		case tok == "(":
			frames = append(frames, callFrame{empty: true})
		case tok == "," && len(frames) > 0:
			frames[len(frames)-1].commas++
		case tok == ")" && len(frames) > 0:
			f := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			nargs := f.commas + 1
			if f.empty {
				nargs = 0
			}
			if f.name == "" {
				break
			}
			if se := checkArity(f.name, f.fn, nargs); se != nil {
				se.pos, se.end = f.pos, pos.Offset+1
				return se, se.end
			}
		}
		pos = advancePos(text, pos, n)
	}
	return nil, 0
}

// unknownFunction is pgbench's error for an identifier that names no
// function; without a "(" after it, it was probably meant as a variable.
func unknownFunction(pos lexer.Position, name, after string) *exprSyntaxError {
	se := &exprSyntaxError{pos: pos, msg: fmt.Sprintf("unexpected function name (%s)", name)}
	if !strings.HasPrefix(strings.TrimLeft(after, " \t\r\f\v"), "(") {
		se.detail = fmt.Sprintf("write :%s for a variable", name)
	}
	return se
}

// participleError turns a participle error on text into pgbench's
// "syntax error", with gbench's words for what was found.
func participleError(text string, err error) *exprSyntaxError {
	var pe participle.Error
	if !errors.As(err, &pe) {
		return &exprSyntaxError{msg: "syntax error", detail: err.Error()}
	}
	if le, ok := pe.(*lexError); ok {
		return &exprSyntaxError{pos: le.pos, msg: le.msg}
	}
	pos := pe.Position()
	off := min(pos.Offset, len(text))
	se := &exprSyntaxError{pos: pos, end: off, msg: "syntax error"}
	if name, ok := bareFunctionBefore(text, off); ok {
		se.detail = fmt.Sprintf("write %s(...) to call the function, or :%s for a variable", name, name)
		return se
	}
	rest := strings.TrimLeft(text[off:], " \t\r\f\v")
	if rest == "" || rest[0] == '\n' {
		se.detail = "unexpected end of expression"
		return se
	}
	tok := rest[:1]
	if _, n := scanExprToken(rest); n > 0 {
		tok = rest[:n]
	}
	se.end = len(text) - len(rest) + len(tok)
	se.detail = fmt.Sprintf("unexpected %q", tok)
	return se
}

// bareFunctionBefore reports whether the token just before off is the name
// of a function without its parenthesis, as in "\set x random".
func bareFunctionBefore(text string, off int) (string, bool) {
	var last string
	var lastType lexer.TokenType
	for i := 0; i < len(text) && i < off; {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\\' || c == '\n' {
			i++
			continue
		}
		typ, n := scanExprToken(text[i:])
		if n == 0 {
			return "", false
		}
		last, lastType = text[i:i+n], typ
		i += n
	}
	if lastType != tokIdent || exprKeywords[strings.ToLower(last)] {
		return "", false
	}
	rest := strings.TrimLeft(text[min(off, len(text)):], " \t\r\f\v")
	return last, !strings.HasPrefix(rest, "(")
}
