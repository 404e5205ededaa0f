package main

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/script"
)

// FuzzOptionValue checks the option values that are not numbers read by
// libc (FuzzCNumbers has those) against their rules: -D NAME=VALUE splits
// at the first '=' and round-trips, NAME@W splits at the last '@' and
// round-trips, --percentiles accepts only numbers in (0, 100] and
// round-trips, -M, -I and --partition-method accept exactly their words.
// Refusals quote the value or say the range. Seeds are in
// testdata/fuzz/FuzzOptionValue.
func FuzzOptionValue(f *testing.F) {
	for _, s := range []string{
		"x=1", "=1", "x=", "a b=c", "x==y", "v_1=hello world", "select-only@2", "a@b@3", "f@", "f@-1",
		"50,90,99.9,100", "", " ", "0", "100.0001", "nan", "1e-320", "50,,99", " 50 , 99 ",
		"simple", "extended", "Prepared", "dtgvp", "dtGvpf ", "x", "range", "HASH", "list",
		"100,200,400", "5%", "nan", "inf", "work_mem=64MB", " a =b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkDefine(t, s)
		checkWeightRoundTrip(t, s)
		checkPercentiles(t, s)
		checkWords(t, s)
		checkSeriesValues(t, s)
	})
}

// checkSeriesValues checks the values of gbench curve, slo and ab: a
// refusal quotes the value; --rates gives distinct sorted finite positive
// rates, --max-rate one, --plateau and --noise a percentage strictly
// between 0 and 100, --set-a a setting name without quotes or blanks; each
// written back reads the same.
func checkSeriesValues(t *testing.T, s string) {
	t.Helper()
	quoted := func(opt string, err error) {
		if !strings.Contains(err.Error(), `"`+s+`"`) {
			t.Fatalf("%s %q: error %q does not quote the value", opt, s, err)
		}
	}
	var rates []float64
	if err := (&rateList{p: &rates, name: "--rates"}).Set(s); err != nil {
		quoted("--rates", err)
	} else {
		for i, r := range rates {
			if !(r > 0 && r <= 1e9) || i > 0 && !(rates[i-1] < r) {
				t.Fatalf("--rates %q = %v", s, rates)
			}
		}
		var back []float64
		if err := (&rateList{p: &back}).Set((&rateList{p: &rates}).String()); err != nil || !slices.Equal(back, rates) {
			t.Fatalf("--rates %q = %v does not round-trip: %v, %v", s, rates, back, err)
		}
	}
	var rate float64
	if err := (&oneRate{p: &rate, name: "--max-rate"}).Set(s); err != nil {
		quoted("--max-rate", err)
	} else if back := 0.0; !(rate > 0 && rate <= 1e9) || (&oneRate{p: &back}).Set((&oneRate{p: &rate}).String()) != nil || back != rate {
		t.Fatalf("--max-rate %q = %v does not round-trip (%v)", s, rate, back)
	}
	var frac float64
	if err := (&percentValue{p: &frac, name: "--plateau"}).Set(s); err != nil {
		quoted("--plateau", err)
	} else if back := 0.0; !(frac > 0 && frac < 1) || (&percentValue{p: &back}).Set((&percentValue{p: &frac}).String()) != nil || math.Abs(back-frac) > 1e-15 {
		t.Fatalf("--plateau %q = %v does not round-trip (%v)", s, frac, back)
	}
	var set []pgsql.Setting
	if err := (&settingList{p: &set, name: "--set-a"}).Set(s); err != nil {
		quoted("--set-a", err)
	} else if len(set) != 1 || set[0].Name == "" || strings.ContainsAny(set[0].Name, " \t'\";=") {
		t.Fatalf("--set-a %q = %+v", s, set)
	}
}

// checkDefine checks -D: pgbench splits at the first '=', wants a valid
// variable name and a non-empty value, and keeps the value as given.
func checkDefine(t *testing.T, s string) {
	t.Helper()
	var got []define
	err := (&defineValue{&got}).Set(s)
	name, value, found := strings.Cut(s, "=")
	switch {
	case !found || name == "" || value == "":
		wantErr(t, "-D", s, err, `invalid variable definition: "`+s+`"`)
	case !script.ValidVarName([]byte(name)):
		wantErr(t, "-D", s, err, `option: invalid variable name: "`+name+`"`)
	case err != nil || len(got) != 1 || got[0] != (define{name, value}):
		t.Fatalf("-D %q = %+v, %v; want %q = %q", s, got, err, name, value)
	}
	if err == nil {
		var back []define
		if err := (&defineValue{&back}).Set(got[0].name + "=" + got[0].value); err != nil || !slices.Equal(back, got) {
			t.Fatalf("-D %q does not round-trip: %+v, %v", s, back, err)
		}
	}
}

// checkWeightRoundTrip checks that NAME@W splits at the last '@' and
// that the name and weight, written back, read the same.
func checkWeightRoundTrip(t *testing.T, s string) {
	t.Helper()
	name, w, err := parseWeight(s)
	at := strings.LastIndexByte(s, '@')
	switch {
	case at < 0 && (err != nil || name != s || w != 1):
		t.Fatalf("parseWeight(%q) = %q, %d, %v; want the name with weight 1", s, name, w, err)
	case at >= 0 && err == nil && name != s[:at]:
		t.Fatalf("parseWeight(%q) name %q; want %q", s, name, s[:at])
	case err != nil && !strings.HasPrefix(err.Error(), "invalid weight specification: "+s[at:]) &&
		!strings.HasPrefix(err.Error(), "weight specification out of range"):
		t.Fatalf("parseWeight(%q) error %q", s, err)
	case err != nil:
		return
	}
	n2, w2, err := parseWeight(name + "@" + strconv.Itoa(w))
	if err != nil || n2 != name || w2 != w || w < 0 || w > maxInt {
		t.Fatalf("parseWeight(%q) = %q, %d does not round-trip: %q, %d, %v", s, name, w, n2, w2, err)
	}
}

// checkPercentiles checks --percentiles: a comma-separated list of
// numbers in (0, 100], or nothing.
func checkPercentiles(t *testing.T, s string) {
	t.Helper()
	ps, err := parsePercentiles(s)
	if err != nil {
		if !strings.Contains(err.Error(), "--percentiles") {
			t.Fatalf("--percentiles=%q: error %q does not name the option", s, err)
		}
		return
	}
	if strings.TrimSpace(s) == "" {
		if ps != nil {
			t.Fatalf("--percentiles=%q = %v; want none", s, ps)
		}
		return
	}
	if len(ps) != strings.Count(s, ",")+1 {
		t.Fatalf("--percentiles=%q = %v: %d values for %d items", s, ps, len(ps), strings.Count(s, ",")+1)
	}
	text := make([]string, len(ps))
	for i, p := range ps {
		if !(p > 0 && p <= 100) || math.IsNaN(p) {
			t.Fatalf("--percentiles=%q takes %v", s, p)
		}
		text[i] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	back, err := parsePercentiles(strings.Join(text, ","))
	if err != nil || !slices.Equal(back, ps) {
		t.Fatalf("--percentiles=%q = %v does not round-trip: %v, %v", s, ps, back, err)
	}
}

// checkWords checks the options that take a word: -M, -I and
// --partition-method.
func checkWords(t *testing.T, s string) {
	t.Helper()
	mode := ""
	err := (&modeValue{&mode}).Set(s)
	okMode := s == "simple" || s == "extended" || s == "prepared"
	if okMode != (err == nil) || okMode && mode != s {
		t.Fatalf("-M %q: %q, %v", s, mode, err)
	}
	if err != nil {
		wantErr(t, "-M", s, err, `invalid query mode (-M): "`+s+`"`)
	}
	steps := ""
	err = (&stepsValue{&steps}).Set(s)
	okSteps := s != "" && strings.Trim(s, "dtgGvpf ") == ""
	if okSteps != (err == nil) || okSteps && steps != s {
		t.Fatalf("-I %q: %q, %v", s, steps, err)
	}
	method := ""
	err = (&partMethodValue{&method}).Set(s)
	lower := strings.ToLower(s)
	okMethod := lower == "range" || lower == "hash"
	if okMethod != (err == nil) || okMethod && method != lower {
		t.Fatalf("--partition-method %q: %q, %v", s, method, err)
	}
	if err != nil {
		wantErr(t, "--partition-method", s, err, `invalid partition method, expecting "range" or "hash", got: "`+s+`"`)
	}
}

func wantErr(t *testing.T, opt, s string, err error, want string) {
	t.Helper()
	if err == nil || err.Error() != want {
		t.Fatalf("%s %q: error %v; want %s", opt, s, err, want)
	}
}
