package main

import (
	"math"
	"strconv"
	"strings"
)

// strtod reads the number at the start of s the way C's strtod does in the
// C locale: leading blanks, a sign, then a decimal number with an optional
// exponent, a hexadecimal one ("0x1.8p3", the exponent optional),
// "inf", "infinity" or "nan" (optionally followed by "(chars)"). Out of
// range values become ±Inf or are rounded towards 0, as strtod's. end is
// the index after the number, 0 when there is none.
func strtod(s string) (v float64, end int) {
	i := len(s) - len(strings.TrimLeft(s, cSpace))
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
	v, _ := strconv.ParseFloat(s[i:j], 64) // out of range: ±Inf or 0, as strtod
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
		return 0, 0 // strtod reads just the "0"
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

// atof is C's atof: strtod's value, 0 when s does not start with a number.
func atof(s string) float64 {
	v, _ := strtod(s)
	return v
}

// atoi is glibc's atoi: strtol's value (clamped on overflow) truncated to
// an int.
func atoi(s string) int32 {
	n, _, _ := strtol(s)
	return int32(n)
}

// itoa formats n in base 10.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
