package series

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzObjective feeds arbitrary --slo values to ParseObjective: an
// objective it refuses gets an error that quotes it; one it accepts is
// sound (a percentile in (0, 100], a finite positive bound, a failure
// ceiling in [0, 1]) and, written back in microseconds and percent,
// parses to the same objective. Seeds are in testdata/fuzz/FuzzObjective.
func FuzzObjective(f *testing.F) {
	for _, s := range []string{"p99<=5ms", "p99.9<2s,failures<=1%", "p50 <= 100us , failures < 0.5%", "p100<=1s", "p0<=1ms",
		"p99<=0ms", "p99<=5", "failures<=1%", "p99<=5ms,failures<=101%", "p99<=5ms,,", "P99<=5ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseObjective(s)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(s)) {
				t.Fatalf("error %q does not quote the objective %q", err, s)
			}
			return
		}
		finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
		if !(o.Percentile > 0 && o.Percentile <= 100) || !(o.BoundUs > 0) || !finite(o.BoundUs) ||
			o.MaxFailures != nil && !(*o.MaxFailures >= 0 && *o.MaxFailures <= 1) || o.Text != s {
			t.Fatalf("%q parses as an unsound objective %+v", s, o)
		}
		op := "<="
		if o.Strict {
			op = "<"
		}
		canon := "p" + strconv.FormatFloat(o.Percentile, 'f', -1, 64) + op + strconv.FormatFloat(o.BoundUs, 'f', -1, 64) + "us"
		if o.MaxFailures != nil {
			canon += ",failures<=" + strconv.FormatFloat(*o.MaxFailures*100, 'f', -1, 64) + "%"
		}
		back, err := ParseObjective(canon)
		if err != nil {
			t.Fatalf("%q parses, its canonical form %q does not: %v", s, canon, err)
		}
		same := back.Percentile == o.Percentile && back.Strict == o.Strict &&
			math.Abs(back.BoundUs-o.BoundUs) <= 1e-9*o.BoundUs && (back.MaxFailures == nil) == (o.MaxFailures == nil)
		if same && o.MaxFailures != nil {
			same = math.Abs(*back.MaxFailures-*o.MaxFailures) <= 1e-12
		}
		if !same {
			t.Fatalf("%q parses as %+v, its canonical form %q as %+v", s, o, canon, back)
		}
	})
}
