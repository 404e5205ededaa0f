package gate

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // "SCRIPT|FIGURE|PERCENTILE|OP|BOUND" per threshold, or the error's text
	}{
		// Every figure and operator.
		{"p99<=5ms, failures<0.1%, tps>=1000", "|latency|99|<=|5000 |failures|0|<|0.001 |tps|0|>=|1000"},
		// max is p100; seconds and microseconds.
		{"max<1s,p99.9>250us", "|latency|100|<|1e+06 |latency|99.9|>|250"},
		// The mean, under either name; a failure count without "%".
		{"avg<=2ms,mean>10us,failures<=3,failures < 0.5 %", "|mean|0|<=|2000 |mean|0|>|10 |failed|0|<=|3 |failures|0|<|0.005"},
		{"stddev<1ms,lag<=500us", "|stddev|0|<|1000 |lag|0|<=|500"},
		// A script prefix, blanks around it.
		{" read : p50<=2ms", "read|latency|50|<=|2000"},
		// Errors name the term and the whole value.
		{"p99<=5", `invalid threshold "p99<=5" in "p99<=5": expected a term like`},
		{"p0<=1ms", "the percentile must be above 0"},
		{":p99<=1ms", "the script name before \":\" is empty"},
		{"failures<0%", "no run has fewer than 0% failures"},
		{"failures<0", "no run has fewer than 0 failures"},
		{"avg<=0ms", "the latency bound must be a finite number above zero"},
		{"p99<=5ms,mean<=", `invalid threshold "mean<=" in "p99<=5ms,mean<=": expected a term like`},
	} {
		ts, err := Parse(c.in)
		if err != nil {
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%q: %v, want %q", c.in, err, c.want)
			}
			continue
		}
		var got []string
		for _, th := range ts {
			got = append(got, strings.Join([]string{th.Script, th.Figure, ftoa(th.Percentile), th.Op, ftoa(th.Bound)}, "|"))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: %s, want %s", c.in, strings.Join(got, " "), c.want)
		}
	}
}

func TestCheck(t *testing.T) {
	ts, _ := Parse("p99<=5ms,tps>=100,failures<=1%,b:p99<=5ms,avg<=3ms,failures<=2,a:mean<1ms")
	lat := func(us float64) func(float64) (float64, bool) {
		return func(float64) (float64, bool) { return us, true }
	}
	total := Figures{TPS: 50, Failures: 0.01, Failed: 2, Latency: lat(4000), Mean: func() (float64, bool) { return 3500, true }}
	scripts := []Figures{{Names: []string{"a"}, Latency: lat(1)}, {Names: []string{"b.sql", "b"}, Latency: func(float64) (float64, bool) { return 0, false }}}
	vs := Check(ts, total, scripts)
	var got []string
	for _, v := range vs {
		got = append(got, v.Threshold+"="+v.Display+map[bool]string{true: " met", false: " breached"}[v.Met])
	}
	want := "p99<=5ms=4.000 ms met|tps>=100=50.000 tps breached|failures<=1%=1.000% met|b:p99<=5ms=— breached" +
		"|avg<=3ms=3.500 ms breached|failures<=2=2 transactions met|a:mean<1ms=— breached"
	if strings.Join(got, "|") != want {
		t.Errorf("%s\nwant %s", strings.Join(got, "|"), want)
	}
	// A figure the result does not keep, and a lag without a schedule.
	vs = Check(mustParse(t, "stddev<1s,lag<1s"), Figures{Lag: func() (float64, bool) { return 0, false }}, nil)
	if vs[0].Met || vs[0].Note != "this result keeps no stddev" || vs[1].Met || !strings.HasPrefix(vs[1].Note, "no schedule lag") {
		t.Errorf("%+v", vs)
	}
	if _, err := FindScript("c", scripts); err == nil || !strings.Contains(err.Error(), "(a, b.sql)") {
		t.Errorf("FindScript: %v", err)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// FuzzParse checks that Parse never panics, that what it accepts is in
// range, and that a threshold's text parses back to the same threshold.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<=5ms,failures<=0.1%,tps>=1000", "read:p99.9<2ms", "max<1s", "avg<=1ms",
		"mean>3us", "stddev<1ms", "lag<=0.5ms", "failures<=0", "failures<0", "p0<=1ms", ":p1<1s", "p101<1s", "tps>=1e309", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := Parse(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid threshold ") {
				t.Fatalf("%q: error %q does not name the bad part", s, err)
			}
			return
		}
		for _, th := range ts {
			switch th.Figure {
			case Latency:
				if !(th.Percentile > 0 && th.Percentile <= 100) || !(th.Bound > 0) {
					t.Fatalf("%q: %+v", s, th)
				}
			case Mean, Stddev, Lag:
				if !(th.Bound > 0) {
					t.Fatalf("%q: %+v", s, th)
				}
			case Failures:
				if !(th.Bound >= 0 && th.Bound <= 1) {
					t.Fatalf("%q: %+v", s, th)
				}
			case Failed, TPS:
				if !(th.Bound >= 0) || math.IsInf(th.Bound, 0) {
					t.Fatalf("%q: %+v", s, th)
				}
			default:
				t.Fatalf("%q: figure %q", s, th.Figure)
			}
			again, err := Parse(th.String())
			if err != nil || len(again) != 1 || again[0] != th {
				t.Fatalf("%q: %q parses back to %+v, %v", s, th.String(), again, err)
			}
		}
	})
}

func mustParse(t *testing.T, s string) []Threshold {
	t.Helper()
	ts, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}
