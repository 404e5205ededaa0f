package main

import (
	"slices"
	"strconv"
	"strings"
)

// splitMatrixList splits "1,16,64" or "1 16 64".
func splitMatrixList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' })
}

// matrixInts is a list of positive integers (from 0 with zero).
type matrixInts struct {
	p    *[]int
	name string
	zero bool
}

func (v *matrixInts) Set(s string) error {
	var out []int
	least := 1
	if v.zero {
		least = 0
	}
	for _, f := range splitMatrixList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < least || n > maxInt {
			if v.zero {
				return optErrf("invalid value \"%s\" for option %s: expected integers from 0 separated by commas, like 0,1000,5000", s, v.name)
			}
			return optErrf("invalid value \"%s\" for option %s: expected positive integers separated by commas, like 4,64,256", s, v.name)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return optErrf("invalid value \"%s\" for option %s: expected positive integers separated by commas, like 4,64,256", s, v.name)
	}
	slices.Sort(out)
	*v.p = out
	return nil
}

func (v *matrixInts) String() string { return joinMatrixInts(*v.p) }
func (v *matrixInts) Type() string   { return "LIST" }

func joinMatrixInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ",")
}

// matrixSeconds is a number of seconds, fractions allowed.
type matrixSeconds struct {
	p    *float64
	name string
	min  float64
}

func (v *matrixSeconds) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(f >= v.min && f <= 86400) { // NaN too
		return optErrf("invalid value \"%s\" for option %s: expected seconds from %s to 86400", s, v.name, strconv.FormatFloat(v.min, 'f', -1, 64))
	}
	*v.p = f
	return nil
}

func (v *matrixSeconds) String() string { return strconv.FormatFloat(*v.p, 'f', -1, 64) }
func (v *matrixSeconds) Type() string   { return "SECONDS" }

// matrixSeed is --seed: an unsigned integer.
type matrixSeed struct{ o *matrixOptions }

func (v *matrixSeed) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return optErrf("invalid value \"%s\" for option --seed: expected an unsigned integer", s)
	}
	v.o.seed = n
	return nil
}

func (v *matrixSeed) String() string { return "" }
func (v *matrixSeed) Type() string   { return "NUM" }
