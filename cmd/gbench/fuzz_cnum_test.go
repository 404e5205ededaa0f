//go:build cgo

package main

import (
	"math"
	"strings"
	"testing"

	"github.com/gbench/gbench/cmd/gbench/internal/libc"
	"github.com/gbench/gbench/internal/cnum"
)

// FuzzCNumbers checks gbench's readers of pgbench's numeric options against
// the C library functions pgbench calls on the same text: strtol (-c, -j,
// -t, -T, -P, -s, -F, --partitions, --aggregate-interval, the @weight of -f
// and -b), strtod through atof (-R, -L, --sampling-rate), atoi
// (--max-tries) and sscanf("%lu%c") (--random-seed), and the options built
// on them: same value, same acceptance, the same message. Seeds are in
// testdata/fuzz/FuzzCNumbers.
func FuzzCNumbers(f *testing.F) {
	for _, s := range []string{
		"10", " 7 ", "+3", "-1", "0", "2147483647", "2147483648", "9223372036854775808", "",
		" ", "12abc", "1.5", "1e3", "0x10", "0x1.8p1", "inf", "-Infinity", "nan", "nan(12)",
		"1e400", "1e-400", ".5", "5.", "0x", "1_000", "00012", "\t\n42", "4294967297", "-0",
		"18446744073709551615", "18446744073709551616", "-18446744073709551615",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			return // no command-line argument holds a NUL
		}
		checkStrtol(t, s)
		checkAtof(t, s)
		checkAtoi(t, s)
		checkSeed(t, s)
		checkIntOption(t, s)
		checkWeight(t, s)
		checkFloatOptions(t, s)
		checkTries(t, s)
	})
}

func checkStrtol(t *testing.T, s string) {
	t.Helper()
	n, end, overflow := cnum.Strtol(s)
	cn, cend, erange, _ := libc.Strtol(s)
	if n != cn || end != cend || overflow != erange {
		t.Fatalf("strtol(%q) = %d, %d, %v; C: %d, %d, %v", s, n, end, overflow, cn, cend, erange)
	}
}

func checkAtof(t *testing.T, s string) {
	t.Helper()
	v := cnum.Atof(s)
	cv, _, _ := libc.Strtod(s)
	if !sameFloat(v, cv) {
		t.Fatalf("atof(%q) = %v; C: %v", s, v, cv)
	}
}

// sameFloat compares bit for bit, every NaN being the same.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func checkAtoi(t *testing.T, s string) {
	t.Helper()
	cv, _ := libc.Atoi(s)
	if v := cnum.Atoi(s); v != cv {
		t.Fatalf("atoi(%q) = %d; C: %d", s, v, cv)
	}
}

func checkSeed(t *testing.T, s string) {
	t.Helper()
	v, ok := parseSeed(s)
	cv, n, _ := libc.SscanfLu(s)
	if ok != (n == 1) || ok && v != cv {
		t.Fatalf("parseSeed(%q) = %d, %v; C sscanf: %d, %d", s, v, ok, cv, n)
	}
}

// checkIntOption checks -c against pgbench's option_parse_int: strtol,
// then only blanks, then a range check on an int.
func checkIntOption(t *testing.T, s string) {
	t.Helper()
	var got int
	err := (&intValue{p: &got, name: "-c/--client", min: 1, max: maxInt}).Set(s)
	cn, end, erange, _ := libc.Strtol(s)
	want := ""
	switch {
	case strings.TrimLeft(s[end:], cnum.Space) != "":
		want = `invalid value "` + s + `" for option -c/--client`
	case erange || cn != int64(int32(cn)) || cn < 1:
		want = "-c/--client must be in range 1..2147483647"
	}
	checkOption(t, "-c", s, err, want, int64(got), cn)
}

// checkWeight checks the @W of -f and -b against pgbench's
// parseScriptWeight: strtol on what follows the last '@', which must be
// read whole.
func checkWeight(t *testing.T, s string) {
	t.Helper()
	spec := "x@" + s
	name, w, err := parseWeight(spec)
	cn, end, erange, _ := libc.Strtol(s)
	want := ""
	switch {
	case strings.Contains(s, "@"):
		return // the name holds an '@': checked by FuzzOptionValue
	case erange || end == 0 || end != len(s):
		want = "invalid weight specification: @" + s
	case cn < 0 || cn > maxInt:
		want = "weight specification out of range (0 .. 2147483647): " + itoa(cn)
	}
	checkOption(t, "@W", s, err, want, int64(w), cn)
	if err == nil && name != "x" {
		t.Fatalf("parseWeight(%q) name %q", spec, name)
	}
}

// checkFloatOptions checks -R, -L and --sampling-rate: atof, then a range
// check. Unlike pgbench, gbench refuses NaN and infinities, which pgbench
// takes and then runs with a broken schedule (NaN) or none (inf).
func checkFloatOptions(t *testing.T, s string) {
	t.Helper()
	cv, _, _ := libc.Strtod(s)
	finite := !math.IsNaN(cv) && !math.IsInf(cv, 0)
	var got float64
	for _, c := range []struct {
		v    interface{ Set(string) error }
		ok   bool
		want string
	}{
		{&rateValue{&got}, finite && cv > 0, `invalid rate limit: "` + s + `"`},
		{&limitValue{&got}, finite && cv > 0, `invalid latency limit: "` + s + `"`},
		{&samplingValue{&got}, finite && cv > 0 && cv <= 1, `invalid sampling rate: "` + s + `"`},
	} {
		got = 0
		err := c.v.Set(s)
		switch {
		case c.ok && (err != nil || !sameFloat(got, cv)):
			t.Fatalf("%T.Set(%q) = %v, %v; want %v", c.v, s, got, err, cv)
		case !c.ok && (err == nil || err.Error() != c.want):
			t.Fatalf("%T.Set(%q) error %v; want %s", c.v, s, err, c.want)
		}
	}
}

// checkTries checks --max-tries: pgbench reads it with atoi into an int32
// and refuses a negative number.
func checkTries(t *testing.T, s string) {
	t.Helper()
	got := -1
	err := (&triesValue{&got}).Set(s)
	cv, _ := libc.Atoi(s)
	want := ""
	if cv < 0 {
		want = `invalid number of maximum tries: "` + s + `"`
	}
	checkOption(t, "--max-tries", s, err, want, int64(got), int64(cv))
}

// checkOption compares an option's outcome with pgbench's: the error
// message want, or no error and the value wantV.
func checkOption(t *testing.T, opt, s string, err error, want string, got, wantV int64) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("%s %q: error %v; pgbench takes %d", opt, s, err, wantV)
	case want == "" && got != wantV:
		t.Fatalf("%s %q = %d; pgbench reads %d", opt, s, got, wantV)
	case want != "" && (err == nil || err.Error() != want):
		t.Fatalf("%s %q: error %v; want %s", opt, s, err, want)
	}
}
