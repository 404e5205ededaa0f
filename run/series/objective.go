package series

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gbench/gbench/result/gate"
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

// ParseObjective reads an objective: a latency term such as "p99<=5ms"
// (any percentile, units us, ms or s, "<" or "<="), optionally followed
// by ",failures<=1%", the ceiling on failed and skipped transactions. The
// terms are gate's (gate.ParseTerm), the grammar --threshold uses too.
func ParseObjective(s string) (Objective, error) {
	o := Objective{Text: s}
	terms := strings.Split(s, ",")
	if len(terms) > 2 {
		return o, fmt.Errorf("invalid objective %q: expected a latency term and at most one failure term, like \"p99<=5ms,failures<=1%%\"", s)
	}
	lat, err := gate.ParseTerm(terms[0])
	if err == nil && (lat.Figure != gate.Latency || !lat.Upper()) {
		err = errors.New("not an upper bound on a percentile")
	}
	if err != nil {
		if lat.Figure == gate.Latency && lat.Upper() {
			return o, fmt.Errorf("invalid objective %q: %v", s, err)
		}
		return o, fmt.Errorf("invalid objective %q: expected a percentile bound like \"p99<=5ms\" (units us, ms or s)", s)
	}
	o.Percentile, o.BoundUs, o.Strict = lat.Percentile, lat.Bound, lat.Op == "<"
	if len(terms) == 2 {
		f, err := gate.ParseTerm(terms[1])
		if err == nil && (f.Figure != gate.Failures || !f.Upper()) {
			err = errors.New("not a failure ceiling")
		}
		if err != nil {
			if f.Figure == gate.Failures && f.Upper() {
				return o, fmt.Errorf("invalid objective %q: %v", s, err)
			}
			return o, fmt.Errorf("invalid objective %q: expected a failure ceiling like \"failures<=1%%\" after the comma", s)
		}
		ratio := f.Bound
		if f.Op == "<" {
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
