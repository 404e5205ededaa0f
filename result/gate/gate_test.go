package gate

import (
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
		// A script prefix, blanks around it.
		{" read : p50<=2ms", "read|latency|50|<=|2000"},
		// Errors name the term and the whole value.
		{"p99<=5", `invalid threshold "p99<=5" in "p99<=5": expected a term like`},
		{"p0<=1ms", "the percentile must be above 0"},
		{":p99<=1ms", "the script name before \":\" is empty"},
		{"failures<0%", "no run has fewer than 0% failures"},
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
	ts, _ := Parse("p99<=5ms,tps>=100,failures<=1%,b:p99<=5ms")
	lat := func(us float64) func(float64) (float64, bool) {
		return func(float64) (float64, bool) { return us, true }
	}
	total := Figures{TPS: 50, Failures: 0.01, Latency: lat(4000)}
	scripts := []Figures{{Names: []string{"a"}, Latency: lat(1)}, {Names: []string{"b.sql", "b"}, Latency: func(float64) (float64, bool) { return 0, false }}}
	vs := Check(ts, total, scripts)
	var got []string
	for _, v := range vs {
		got = append(got, v.Threshold+"="+v.Display+map[bool]string{true: " met", false: " breached"}[v.Met])
	}
	want := "p99<=5ms=4.000 ms met|tps>=100=50.000 tps breached|failures<=1%=1.000% met|b:p99<=5ms=— breached"
	if strings.Join(got, "|") != want {
		t.Errorf("%s\nwant %s", strings.Join(got, "|"), want)
	}
	if _, err := FindScript("c", scripts); err == nil || !strings.Contains(err.Error(), "(a, b.sql)") {
		t.Errorf("FindScript: %v", err)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
