// Package cnum reads numbers the way the C library functions pgbench
// calls do in the C locale (Strtol, Strtod, Atof, Atoi), so that gbench
// accepts, rejects and rounds a numeric option exactly as pgbench does.
// cmd/gbench's FuzzCNumbers checks it against the C library itself.
package cnum

import (
	"math"
	"strconv"
	"strings"
)

// Strtod reads the number at the start of s the way C's Strtod does in the
// C locale: leading blanks, a sign, then a decimal number with an optional
// exponent, a hexadecimal one ("0x1.8p3", the exponent optional),
// "inf", "infinity" or "nan" (optionally followed by "(chars)"). Out of
// range values become ±Inf or are rounded towards 0, as Strtod's. end is
// the index after the number, 0 when there is none.
func Strtod(s string) (v float64, end int) {
	i := len(s) - len(strings.TrimLeft(s, Space))
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	switch {
	case hasFoldPrefix(s[i:], "infinity"):
		v, end = math.Inf(1), i+len("infinity")
	case hasFoldPrefix(s[i:], "inf"):
		v, end = math.Inf(1), i+len("inf")
	case hasFoldPrefix(s[i:], "nan"):
		v, end = math.NaN(), i+len("nan")+nanChars(s[i+3:])
	default:
		v, end = hexFloat(s, i)
		if end == 0 {
			v, end = decFloat(s, i)
		}
	}
	if end == 0 {
		return 0, 0
	}
	if neg {
		v = -v
	}
	return v, end
}

// hasFoldPrefix is strings.HasPrefix ignoring ASCII case.
func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// nanChars is the length of the "(n-char-sequence)" after "nan", 0 when
// there is none.
func nanChars(s string) int {
	if !strings.HasPrefix(s, "(") {
		return 0
	}
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == ')':
			return j + 1
		case !(isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'):
			return 0
		}
	}
	return 0
}

// decFloat reads a decimal number from s[i:]: digits with an optional
// point, at least one digit, then an optional exponent.
func decFloat(s string, i int) (float64, int) {
	j := skip(s, i, isDigit)
	digits := j - i
	if j < len(s) && s[j] == '.' {
		k := skip(s, j+1, isDigit)
		digits += k - j - 1
		j = k
	}
	if digits == 0 {
		return 0, 0
	}
	j = exponent(s, j, "eE")
	v, _ := strconv.ParseFloat(s[i:j], 64) // out of range: ±Inf or 0, as Strtod
	return v, j
}

// hexFloat reads a hexadecimal number from s[i:]: "0x", hex digits with an
// optional point, at least one digit, then an optional binary exponent.
func hexFloat(s string, i int) (float64, int) {
	if !hasFoldPrefix(s[i:], "0x") {
		return 0, 0
	}
	start := i + 2
	j := skip(s, start, isHexDigit)
	intPart := s[start:j]
	frac := ""
	if j < len(s) && s[j] == '.' {
		k := skip(s, j+1, isHexDigit)
		frac, j = s[j+1:k], k
	}
	if intPart == "" && frac == "" {
		return 0, 0 // Strtod reads just the "0"
	}
	k := exponent(s, j, "pP")
	exp := "p0"
	if k > j {
		exp = s[j:k]
	}
	v, _ := strconv.ParseFloat("0x"+intPart+"."+frac+exp, 64)
	return v, k
}

// exponent returns the index after an exponent (a letter of marks, an
// optional sign, digits) at s[j:], or j when there is none.
func exponent(s string, j int, marks string) int {
	if j >= len(s) || !strings.ContainsRune(marks, rune(s[j])) {
		return j
	}
	k := j + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	if e := skip(s, k, isDigit); e > k {
		return e
	}
	return j
}

func skip(s string, i int, ok func(byte) bool) int {
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Atof is C's Atof: Strtod's value, 0 when s does not start with a number.
func Atof(s string) float64 {
	v, _ := Strtod(s)
	return v
}

// Atoi is glibc's Atoi: Strtol's value (clamped on overflow) truncated to
// an int.
func Atoi(s string) int32 {
	n, _, _ := Strtol(s)
	return int32(n)
}

// Space is what C's isspace accepts.
const Space = " \t\n\v\f\r"

// Strtol reads a base-10 integer like C's Strtol: leading blanks, a sign,
// digits. end is the index after the number, 0 when there is none;
// overflow is Strtol's ERANGE (n is then clamped).
func Strtol(s string) (n int64, end int, overflow bool) {
	i := len(s) - len(strings.TrimLeft(s, Space))
	j := i
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	k := j
	for k < len(s) && s[k] >= '0' && s[k] <= '9' {
		k++
	}
	if k == j {
		return 0, 0, false
	}
	n, err := strconv.ParseInt(s[i:k], 10, 64)
	return n, k, err != nil
}
