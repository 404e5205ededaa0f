package script

import (
	"math"
	"strconv"
)

// Kind is the type of a Value, with pgbench's types plus gbench's lists.
type Kind uint8

// Value kinds. KindNone is the zero Value: no value at all (an undefined variable).
const (
	KindNone Kind = iota
	KindNull
	KindBool
	KindInt
	KindDouble
	// KindString is a gbench extension: text built by string literals and
	// functions. Its bytes live in the evaluating Env (see strings.go).
	KindString
)

// String returns the kind's name as pgbench spells it in messages.
func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindInt:
		return "int"
	case KindDouble:
		return "double"
	case KindString:
		return "string"
	}
	return "none"
}

// Value is the result of evaluating an expression: NULL, a boolean, an int64,
// a float64 or (gbench) a string. It is small and passed by value; it never
// holds memory: a string's bytes are in the Env that evaluated it, which the
// value indexes (offset and length packed in i).
type Value struct {
	kind Kind
	i    int64
	f    float64
}

// Null returns the NULL value.
func Null() Value { return Value{kind: KindNull} }

// Bool returns a boolean value.
func Bool(b bool) Value {
	if b {
		return Value{kind: KindBool, i: 1}
	}
	return Value{kind: KindBool}
}

// Int returns an integer value.
func Int(i int64) Value { return Value{kind: KindInt, i: i} }

// Double returns a double value.
func Double(f float64) Value { return Value{kind: KindDouble, f: f} }

// Kind returns the value's kind.
func (v Value) Kind() Kind { return v.kind }

// AsInt returns the integer held by an int value (0 otherwise).
func (v Value) AsInt() int64 { return v.i }

// AsDouble returns the float held by a double value (0 otherwise).
func (v Value) AsDouble() float64 { return v.f }

// AsBool returns the boolean held by a boolean value (false otherwise).
func (v Value) AsBool() bool { return v.kind == KindBool && v.i != 0 }

// Truth is pgbench's truth value for \if: NULL and zero are false.
func (v Value) Truth() bool {
	switch v.kind {
	case KindBool, KindInt:
		return v.i != 0
	case KindDouble:
		return v.f != 0
	}
	return false
}

// AppendText appends the text pgbench substitutes for the value into SQL:
// NULL, true/false, the integer, or the double with 15 significant digits
// ("%.15g" with PostgreSQL's spelling of Infinity and NaN). A string's text
// is in its Env, not in the Value: this appends nothing for one (the Env
// and Vars append it).
func (v Value) AppendText(dst []byte) []byte {
	switch v.kind {
	case KindNull:
		return append(dst, "NULL"...)
	case KindBool:
		if v.i != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindInt:
		return strconv.AppendInt(dst, v.i, 10)
	case KindDouble:
		return appendDouble(dst, v.f)
	}
	return dst
}

// String returns AppendText's text.
func (v Value) String() string { return string(v.AppendText(nil)) }

// appendDouble formats like C's "%.15g" through PostgreSQL's snprintf.
func appendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	}
	return appendG15(dst, f)
}

// appendG15 is "%.15g": %e style when the exponent is < -4 or >= 15, else %f
// style, trailing zeros removed, exponent with at least two digits.
func appendG15(dst []byte, f float64) []byte {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', 14, 64)
	// e is [-]d.dddddddddddddde±XX
	mant, exp := splitExp(e)
	if exp < -4 || exp >= 15 {
		dst = append(dst, trimFraction(mant)...)
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	}
	prec := 14 - exp
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', prec, 64)
	return append(dst[:start], trimFraction(dst[start:])...)
}

// splitExp splits strconv's 'e' output into mantissa and exponent.
func splitExp(e []byte) ([]byte, int) {
	for i := len(e) - 1; i >= 0; i-- {
		if e[i] == 'e' {
			return e[:i], parseExp(e[i+1:])
		}
	}
	return e, 0
}

// trimFraction removes trailing zeros after a decimal point, and the point.
func trimFraction(b []byte) []byte {
	dot := -1
	for i, c := range b {
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return b
	}
	end := len(b)
	for end > dot+1 && b[end-1] == '0' {
		end--
	}
	if end == dot+1 {
		end = dot
	}
	return b[:end]
}

// parseExp parses strconv's exponent text: a sign and decimal digits.
func parseExp(b []byte) int {
	neg := len(b) > 0 && b[0] == '-'
	n := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	if neg {
		return -n
	}
	return n
}
