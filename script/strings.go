package script

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"strconv"
)

// Strings are a gbench extension to pgbench's expression language (see
// docs/language.md). pgbench has no string values: its scanner rejects a
// quote ("unexpected character (')") and its grammar a "||", so no pgbench
// script can mean anything with them.
//
// A string Value does not hold its bytes. They are appended to its Env's
// arena, env.str, and the Value packs their offset and length in i. The
// arena is emptied when a top-level evaluation starts (ExecSet, Cond,
// execList), so a client's string work reuses one buffer and allocates
// nothing once it is large enough. Within one evaluation the arena only
// grows, so every string made during it stays valid until the result is
// stored: Vars.SetString copies it into the variable's own text buffer.

// maxStringLen bounds a string built by an expression, 1 MiB, as maxListLen
// bounds lists: a mistyped size fails with a clear error instead of taking
// the machine's memory.
const maxStringLen = 1 << 20

// resetStrings empties the arena at the start of a top-level evaluation.
func (env *Env) resetStrings() { env.str = env.str[:0] }

// stringValue returns the string Value of arena bytes [off, len(env.str)).
func (env *Env) stringValue(off int) (Value, error) {
	n := len(env.str) - off
	if n > maxStringLen {
		env.str = env.str[:off]
		return Value{}, fmt.Errorf("string of %d bytes is longer than the maximum, %d", n, maxStringLen)
	}
	return Value{kind: KindString, i: int64(off)<<32 | int64(n)}, nil
}

// newString copies b into the arena as a string Value.
func (env *Env) newString(b []byte) (Value, error) {
	off := len(env.str)
	env.str = append(env.str, b...)
	return env.stringValue(off)
}

// strBytes returns the bytes of a string Value made by this Env.
func (env *Env) strBytes(v Value) []byte {
	off, n := v.i>>32, v.i&0xffffffff
	return env.str[off : off+n : off+n]
}

// appendValueText appends the text of any value: a string's bytes, or the
// text pgbench substitutes for a number, a boolean or NULL.
func (env *Env) appendValueText(dst []byte, v Value) []byte {
	if v.kind == KindString {
		return append(dst, env.strBytes(v)...)
	}
	return v.AppendText(dst)
}

// varString copies the text of a variable holding a string into the arena.
func (env *Env) varString(slot int) (Value, error) {
	text, _ := env.Vars.Text(slot)
	return env.newString(text)
}

// concat appends the text of each argument. A NULL operand makes || NULL
// (evalCall's rule for every function); concat() skips NULLs, as in SQL.
func (env *Env) concat(fn funcID, a []Value) (Value, error) {
	// When the first operand is the arena's last string, as in a chain
	// a || b || c, the others are appended after it in place.
	off := len(env.str)
	start := 0
	if len(a) > 0 && a[0].kind == KindString {
		if o, n := a[0].i>>32, a[0].i&0xffffffff; int(o+n) == len(env.str) {
			off, start = int(o), 1
		}
	}
	for _, v := range a[start:] {
		if v.kind == KindNull { // only concat() gets here: see evalCall
			continue
		}
		if v.kind == KindString && len(env.str)-off+int(v.i&0xffffffff) > maxStringLen {
			return Value{}, fmt.Errorf("%s: string longer than the maximum, %d bytes", funcInfos[fn].name, maxStringLen)
		}
		env.str = env.appendValueText(env.str, v)
	}
	return env.stringValue(off)
}

// textArg returns the text of a string function's argument; numbers and
// booleans give their SQL text, so that lpad(:id, 8, '0') works.
func (env *Env) textArg(v Value) []byte {
	if v.kind == KindString {
		return env.strBytes(v)
	}
	off := len(env.str)
	env.str = v.AppendText(env.str)
	return env.str[off:len(env.str):len(env.str)]
}

// lengthArg coerces a length or count argument, within [0, maxStringLen].
func lengthArg(fn funcID, v Value) (int, error) {
	n, err := coerceInt(v)
	if err != nil {
		return 0, fmt.Errorf("%s(): %w", funcInfos[fn].name, err)
	}
	if n < 0 || n > maxStringLen {
		return 0, fmt.Errorf("%s(): length must be between 0 and %d (not %d)", funcInfos[fn].name, maxStringLen, n)
	}
	return int(n), nil
}

// stringFunc evaluates the string functions.
func (env *Env) stringFunc(fn funcID, a []Value) (Value, error) {
	switch fn {
	case fnConcatOp, fnConcat:
		return env.concat(fn, a)
	case fnLength:
		return Int(int64(len(env.textArg(a[0])))), nil
	case fnUUID:
		n, err := coerceInt(a[0])
		if err != nil {
			return Value{}, fmt.Errorf("uuid(): %w", err)
		}
		off := len(env.str)
		env.str = AppendUUID(env.str, n)
		return env.stringValue(off)
	case fnRandomString:
		n, err := lengthArg(fn, a[0])
		if err != nil {
			return Value{}, err
		}
		off := len(env.str)
		env.str = appendRandomString(env.str, &env.Rand, n)
		return env.stringValue(off)
	case fnRepeat:
		s := env.textArg(a[0])
		n, err := coerceInt(a[1])
		if err != nil {
			return Value{}, fmt.Errorf("repeat(): %w", err)
		}
		if n < 0 {
			n = 0 // as PostgreSQL's repeat
		}
		if len(s) > 0 && n > int64(maxStringLen/len(s)) {
			return Value{}, fmt.Errorf("repeat(): %d copies of %d bytes are longer than the maximum, %d", n, len(s), maxStringLen)
		}
		off := len(env.str)
		for i := int64(0); i < n; i++ {
			env.str = append(env.str, s...)
		}
		return env.stringValue(off)
	case fnLpad, fnRpad:
		return env.pad(fn, a)
	}
	return Value{}, fmt.Errorf("internal error: unknown string function %d", fn)
}

// pad is PostgreSQL's lpad/rpad(s, n [, fill]) over bytes: the result is
// exactly n bytes, s cut to n or padded with repeats of fill (a space by
// default); an empty fill leaves s as it is, cut to n.
func (env *Env) pad(fn funcID, a []Value) (Value, error) {
	s := env.textArg(a[0])
	n, err := lengthArg(fn, a[1])
	if err != nil {
		return Value{}, err
	}
	fill := []byte{' '}
	if len(a) == 3 {
		fill = env.textArg(a[2])
	}
	off := len(env.str)
	if len(s) >= n || len(fill) == 0 {
		env.str = append(env.str, s[:min(n, len(s))]...)
		return env.stringValue(off)
	}
	if fn == fnRpad {
		env.str = append(env.str, s...)
	}
	for k := n - len(s); k > 0; {
		c := min(k, len(fill))
		env.str = append(env.str, fill[:c]...)
		k -= c
	}
	if fn == fnLpad {
		env.str = append(env.str, s...)
	}
	return env.stringValue(off)
}

// compareStrings evaluates = <> <= < between two strings, in byte order.
func (env *Env) compareStrings(fn funcID, l, r Value) (Value, error) {
	if l.kind != KindString || r.kind != KindString {
		return Value{}, fmt.Errorf("cannot compare %s with %s", l.kind, r.kind)
	}
	c := bytes.Compare(env.strBytes(l), env.strBytes(r))
	switch fn {
	case fnEq:
		return Bool(c == 0), nil
	case fnNe:
		return Bool(c != 0), nil
	case fnLe:
		return Bool(c <= 0), nil
	}
	return Bool(c < 0), nil
}

// randomAlphabet has 64 characters that need no quoting in SQL, JSON, RESP
// or a shell word, so that one 6-bit draw is one character.
const randomAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// appendRandomString appends n characters drawn uniformly from
// randomAlphabet with the client's generator: ten characters per 64-bit
// draw, so a seeded run repeats its strings.
func appendRandomString(dst []byte, r *PRNG, n int) []byte {
	for n > 0 {
		x := r.Uint64()
		for k := 0; k < 10 && n > 0; k++ {
			dst = append(dst, randomAlphabet[x&63])
			x >>= 6
			n--
		}
	}
	return dst
}

// uuidKey starts the text uuid() hashes: fixed, because the loader
// (workloads, and dataset.sql's gbench.uuid) and every run must agree on the
// keys.
const uuidKey = "gbench-uuid:"

// AppendUUID appends uuid(n): the RFC 9562 text form (8-4-4-4-12 lower-case
// hex digits) of a version 8 UUID whose bits are the MD5 of "gbench-uuid:"
// and the decimal n, with the version and variant bits set (6 of the 128).
// It is deterministic, the same on every machine and run, and PostgreSQL
// computes the same (gbench.uuid in workloads/dataset.sql). MD5 is no
// security here, only a hash that SQL has: distinct integers give distinct
// UUIDs unless 122-bit hashes collide (TestUUIDLayout checks 200,000).
// It allocates nothing.
func AppendUUID(dst []byte, n int64) []byte {
	var buf [len(uuidKey) + 20]byte
	u := md5.Sum(strconv.AppendInt(append(buf[:0], uuidKey...), n, 10))
	u[6] = 0x80 | u[6]&0x0f // version 8
	u[8] = 0x80 | u[8]&0x3f // variant 0b10
	const hex = "0123456789abcdef"
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hex[c>>4], hex[c&15])
	}
	return dst
}

// AppendSQLLiteral appends s as a PostgreSQL string literal: '...' with
// quotes doubled, or E'...' with backslashes doubled too when s has one,
// so that it reads the same whatever standard_conforming_strings says.
func AppendSQLLiteral(dst, s []byte) []byte {
	if bytes.IndexByte(s, '\\') >= 0 {
		dst = append(dst, 'E')
	}
	dst = append(dst, '\'')
	for _, c := range s {
		switch c {
		case '\'':
			dst = append(dst, '\'', '\'')
		case '\\':
			dst = append(dst, '\\', '\\')
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '\'')
}

// unquoteString returns the value of a string literal token: '...' with ”
// standing for one quote.
func unquoteString(tok string) string {
	body := tok[1 : len(tok)-1]
	if !containsQuote(body) {
		return body
	}
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		b = append(b, body[i])
		if body[i] == '\'' {
			i++ // the second quote of ''
		}
	}
	return string(b)
}

func containsQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			return true
		}
	}
	return false
}

// scanString returns the length of the string literal at the start of s
// (which starts with a quote), or 0 when it is not closed on its line.
func scanString(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return 0
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return 0
}

// badCharacter is the scanner's message for a character it cannot start a
// token with: pgbench's "unexpected character", or gbench's words for a
// quote that opens a string never closed.
func badCharacter(rest string) string {
	if rest[0] == '\'' {
		return "unterminated quoted string"
	}
	return fmt.Sprintf("unexpected character (%s)", rest[:1])
}
