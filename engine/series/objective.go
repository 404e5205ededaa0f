package series

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Objective is a service-level objective: a latency percentile bound
// and, optionally, a ceiling on the share of failed transactions.
type Objective struct {
	// Text is the objective as given.
	Text string `json:"text"`
	// Percentile is in (0, 100]; 100 is the maximum.
	Percentile float64 `json:"percentile"`
	// BoundUs is the latency bound in microseconds; Strict makes it
	// exclusive ("<" rather than "<=").
	BoundUs float64 `json:"bound_us"`
	Strict  bool    `json:"strict,omitempty"`
	// MaxFailures is the ceiling on failed and skipped transactions over
	// all scheduled ones, as a fraction; absent for none.
	MaxFailures *float64 `json:"max_failures,omitempty"`
}

var (
	latencyTerm = regexp.MustCompile(`^p(\d+(?:\.\d+)?)\s*(<=|<)\s*(\d+(?:\.\d+)?)\s*(us|ms|s)$`)
	failureTerm = regexp.MustCompile(`^failures\s*(<=|<)\s*(\d+(?:\.\d+)?)\s*%$`)
)

// ParseObjective reads an objective: a latency term such as "p99<=5ms"
// (any percentile, units us, ms or s, "<" or "<="), optionally followed
// by ",failures<=1%", the ceiling on failed and skipped transactions.
func ParseObjective(s string) (Objective, error) {
	o := Objective{Text: s}
	terms := strings.Split(s, ",")
	if len(terms) > 2 {
		return o, fmt.Errorf("invalid objective %q: expected a latency term and at most one failure term, like \"p99<=5ms,failures<=1%%\"", s)
	}
	m := latencyTerm.FindStringSubmatch(strings.TrimSpace(terms[0]))
	if m == nil {
		return o, fmt.Errorf("invalid objective %q: expected a percentile bound like \"p99<=5ms\" (units us, ms or s)", s)
	}
	o.Percentile, _ = strconv.ParseFloat(m[1], 64)
	if o.Percentile <= 0 || o.Percentile > 100 {
		return o, fmt.Errorf("invalid objective %q: the percentile must be above 0 and at most 100", s)
	}
	o.Strict = m[2] == "<"
	v, _ := strconv.ParseFloat(m[3], 64)
	o.BoundUs = v * map[string]float64{"us": 1, "ms": 1e3, "s": 1e6}[m[4]]
	if o.BoundUs <= 0 || math.IsInf(o.BoundUs, 0) {
		return o, fmt.Errorf("invalid objective %q: the latency bound must be a finite number above zero", s)
	}
	if len(terms) == 2 {
		f := failureTerm.FindStringSubmatch(strings.TrimSpace(terms[1]))
		if f == nil {
			return o, fmt.Errorf("invalid objective %q: expected a failure ceiling like \"failures<=1%%\" after the comma", s)
		}
		v, _ := strconv.ParseFloat(f[2], 64)
		if v > 100 {
			return o, fmt.Errorf("invalid objective %q: the failure ceiling is a percentage of at most 100", s)
		}
		if v == 0 && f[1] == "<" {
			return o, fmt.Errorf("invalid objective %q: no run has fewer than 0%% failures; for none at all, write \"failures<=0%%\"", s)
		}
		ratio := v / 100
		if f[1] == "<" {
			ratio = math.Nextafter(ratio, math.Inf(-1))
		}
		o.MaxFailures = &ratio
	}
	return o, nil
}

// Meets reports whether a latency percentile and a failure ratio meet o.
func (o *Objective) Meets(valueUs, failures float64) bool {
	ok := valueUs <= o.BoundUs
	if o.Strict {
		ok = valueUs < o.BoundUs
	}
	if o.MaxFailures != nil && failures > *o.MaxFailures {
		return false
	}
	return ok
}

// Name is the percentile's name: "p99", "p99.9", "max".
func (o *Objective) Name() string {
	if o.Percentile == 100 {
		return "max"
	}
	return "p" + strconv.FormatFloat(o.Percentile, 'f', -1, 64)
}
