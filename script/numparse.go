package script

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"
)

// parseVarText converts a variable's text to a typed value the way pgbench's
// makeVariableValue does.
func parseVarText(name string, b []byte) (Value, error) {
	switch {
	case len(b) == 0:
		return Value{}, fmt.Errorf("variable %q has an empty value", name)
	case equalFold(b, "null"):
		return Null(), nil
	case prefixFold(b, "true") || prefixFold(b, "yes") || equalFold(b, "on"):
		return Bool(true), nil
	case prefixFold(b, "false") || prefixFold(b, "no") || equalFold(b, "off") || equalFold(b, "of"):
		return Bool(false), nil
	case looksInt(b):
		i, err := parseCInt(b)
		if err != nil {
			return Value{}, err
		}
		return Int(i), nil
	}
	f, ok, erange := parseCDouble(b)
	if !ok || erange {
		return Value{}, fmt.Errorf("malformed variable %q value: %q", name, b)
	}
	return Double(f), nil
}

// equalFold reports whether b equals the lower-case ASCII word w, ignoring case.
func equalFold(b []byte, w string) bool {
	return len(b) == len(w) && prefixFold(b, w)
}

// prefixFold reports whether b is a prefix of the lower-case word w, ignoring
// case (pgbench's pg_strncasecmp(value, word, strlen(value)) == 0).
func prefixFold(b []byte, w string) bool {
	if len(b) > len(w) {
		return false
	}
	for i, c := range b {
		if lower(c) != w[i] {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// looksInt is pgbench's is_an_int: optional spaces, an optional sign, digits.
// Like pgbench it accepts a lone sign or an empty string, which then fail to
// convert.
func looksInt(b []byte) bool {
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	if i < len(b) && !isDigit(b[i]) {
		return false
	}
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i == len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseCInt converts text accepted by looksInt, like strtoi64 with pgbench's
// error messages.
func parseCInt(b []byte) (int64, error) {
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, fmt.Errorf("invalid input syntax for type bigint: %q", b)
	}
	var u uint64
	for ; i < len(b); i++ {
		d := uint64(b[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			return 0, fmt.Errorf("value %q is out of range for type bigint", b)
		}
		u = u*10 + d
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), nil
	case !neg && u <= math.MaxInt64:
		return int64(u), nil
	}
	return 0, fmt.Errorf("value %q is out of range for type bigint", b)
}

// parseCDouble converts text the way C's strtod does when the whole text must
// be consumed: leading spaces, inf/infinity/nan, hex floats. erange reports
// what strtod reports as ERANGE: overflow, or underflow to zero or a
// subnormal number.
func parseCDouble(b []byte) (f float64, ok, erange bool) {
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	b = b[i:]
	if len(b) == 0 {
		return 0, false, false
	}
	if v, isNaN := parseNaNPayload(b); isNaN {
		return v, true, false
	}
	for _, c := range b {
		if c == '_' {
			return 0, false, false // Go accepts digit separators, C does not
		}
	}
	var tmp [64]byte
	s := b
	if isHexFloatWithoutExponent(b) && len(b)+2 <= len(tmp) {
		s = append(append(tmp[:0], b...), 'p', '0')
	}
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(s), len(s)), 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return f, true, true
		}
		return 0, false, false
	}
	if f != 0 && math.Abs(f) < 0x1p-1022 || f == 0 && hasNonZeroMantissa(b) {
		return f, true, true
	}
	return f, true, false
}

// parseNaNPayload accepts C's "nan(chars)" form, which Go does not.
func parseNaNPayload(b []byte) (float64, bool) {
	s := b
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	if len(s) < 5 || !prefixFold(s[:3], "nan") || s[3] != '(' || s[len(s)-1] != ')' {
		return 0, false
	}
	for _, c := range s[4 : len(s)-1] {
		if !(isDigit(c) || c == '_' || (lower(c) >= 'a' && lower(c) <= 'z')) {
			return 0, false
		}
	}
	return math.NaN(), true
}

func isHexFloatWithoutExponent(b []byte) bool {
	s := b
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if len(s) < 3 || s[0] != '0' || lower(s[1]) != 'x' {
		return false
	}
	for _, c := range s[2:] {
		if lower(c) == 'p' {
			return false
		}
	}
	return true
}

// hasNonZeroMantissa reports whether a decimal or hex number's digits before
// any exponent include a non-zero digit.
func hasNonZeroMantissa(b []byte) bool {
	hex := isHexFloatWithoutExponent(b) || len(b) > 2 && lower(b[1]) == 'x' || len(b) > 3 && lower(b[2]) == 'x'
	start := 0
	if hex {
		start = 2
		if b[0] == '+' || b[0] == '-' {
			start = 3
		}
	}
	for _, c := range b[start:] {
		l := lower(c)
		if !hex && l == 'e' || hex && l == 'p' {
			return false
		}
		if c >= '1' && c <= '9' || hex && l >= 'a' && l <= 'f' {
			return true
		}
	}
	return false
}
