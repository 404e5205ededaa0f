package gate

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Figures a term can name.
const (
	Latency  = "latency"  // a percentile, in microseconds
	Mean     = "mean"     // the mean latency, in microseconds
	Stddev   = "stddev"   // the latency's standard deviation, in microseconds
	Lag      = "lag"      // the mean schedule lag under --rate, in microseconds
	Failures = "failures" // a ratio in [0, 1]
	Failed   = "failed"   // a count of failed and skipped transactions
	TPS      = "tps"      // transactions per second
)

// Term is one bound on one figure: "p99<=5ms".
type Term struct {
	// Text is the term as written, blanks trimmed.
	Text string `json:"text"`
	// Figure is Latency, Mean, Stddev, Lag, Failures, Failed or TPS.
	Figure string `json:"figure"`
	// Percentile is the latency percentile in (0, 100]; 0 for other figures.
	Percentile float64 `json:"percentile,omitempty"`
	// Op is "<", "<=", ">" or ">=".
	Op string `json:"op"`
	// Bound is in the figure's unit: microseconds, a ratio, a count, or tps.
	Bound float64 `json:"bound"`
}

var (
	latencyTerm = regexp.MustCompile(`^(?:p(\d+(?:\.\d+)?)|max)\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*(us|ms|s)$`)
	meanTerm    = regexp.MustCompile(`^(avg|mean|stddev|lag)\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*(us|ms|s)$`)
	failureTerm = regexp.MustCompile(`^failures\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)\s*(%?)$`)
	tpsTerm     = regexp.MustCompile(`^tps\s*(<=|<|>=|>)\s*(\d+(?:\.\d+)?)$`)
)

var units = map[string]float64{"us": 1, "ms": 1e3, "s": 1e6}

// ParseTerm reads one term. Its errors say what was expected, without
// quoting s (the caller names the option and the whole value).
func ParseTerm(s string) (Term, error) {
	s = strings.TrimSpace(s)
	t := Term{Text: s}
	if m := latencyTerm.FindStringSubmatch(s); m != nil {
		t.Figure, t.Op, t.Percentile = Latency, m[2], 100
		if m[1] != "" {
			t.Percentile, _ = strconv.ParseFloat(m[1], 64)
		}
		if t.Percentile <= 0 || t.Percentile > 100 {
			return t, fmt.Errorf("the percentile must be above 0 and at most 100")
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		t.Bound = v * units[m[4]]
		if t.Bound <= 0 || math.IsInf(t.Bound, 0) {
			return t, fmt.Errorf("the latency bound must be a finite number above zero")
		}
		return t, nil
	}
	if m := meanTerm.FindStringSubmatch(s); m != nil {
		v, _ := strconv.ParseFloat(m[3], 64)
		t.Figure, t.Op, t.Bound = m[1], m[2], v*units[m[4]]
		if t.Figure == "avg" {
			t.Figure = Mean
		}
		if t.Bound <= 0 || math.IsInf(t.Bound, 0) {
			return t, fmt.Errorf("the latency bound must be a finite number above zero")
		}
		return t, nil
	}
	if m := failureTerm.FindStringSubmatch(s); m != nil && m[3] == "" {
		// Without "%", a count of transactions.
		t.Figure, t.Op = Failed, m[1]
		t.Bound, _ = strconv.ParseFloat(m[2], 64)
		if math.IsInf(t.Bound, 0) || (t.Bound == 0 && t.Op == "<") {
			return t, fmt.Errorf("the failure count must be a finite number, and no run has fewer than 0 failures")
		}
		return t, nil
	}
	if m := failureTerm.FindStringSubmatch(s); m != nil {
		v, _ := strconv.ParseFloat(m[2], 64)
		t.Figure, t.Op, t.Bound = Failures, m[1], v/100
		if v > 100 {
			return t, fmt.Errorf("the failure ceiling is a percentage of at most 100")
		}
		if v == 0 && t.Op == "<" {
			return t, fmt.Errorf("no run has fewer than 0%% failures; for none at all, write \"failures<=0%%\"")
		}
		return t, nil
	}
	if m := tpsTerm.FindStringSubmatch(s); m != nil {
		t.Figure, t.Op = TPS, m[1]
		t.Bound, _ = strconv.ParseFloat(m[2], 64)
		if math.IsInf(t.Bound, 0) {
			return t, fmt.Errorf("the tps bound must be a finite number")
		}
		return t, nil
	}
	return t, fmt.Errorf("expected a term like \"p99<=5ms\" (units us, ms or s; max for the largest, avg or mean for the mean, stddev, lag for the schedule lag), \"failures<=0.1%%\" (a share), \"failures<=10\" (a count) or \"tps>=1000\"")
}

// Holds reports whether value meets the term.
func (t *Term) Holds(value float64) bool {
	switch t.Op {
	case "<":
		return value < t.Bound
	case "<=":
		return value <= t.Bound
	case ">":
		return value > t.Bound
	}
	return value >= t.Bound
}

// Upper reports whether the term bounds its figure from above (< or <=).
func (t *Term) Upper() bool { return strings.HasPrefix(t.Op, "<") }

// Name is the figure's name: "p99", "p99.9", "max", "mean", "stddev",
// "lag", "failures"
// (both the share and the count), "tps".
func (t *Term) Name() string {
	switch {
	case t.Figure == Failed:
		return Failures
	case t.Figure != Latency:
		return t.Figure
	case t.Percentile == 100:
		return "max"
	}
	return "p" + strconv.FormatFloat(t.Percentile, 'f', -1, 64)
}

// Format writes a value of the term's figure in its unit: "5.123 ms",
// "0.250%", "1234.5 tps".
func (t *Term) Format(value float64) string {
	switch t.Figure {
	case Latency, Mean, Stddev, Lag:
		return strconv.FormatFloat(value/1000, 'f', 3, 64) + " ms"
	case Failed:
		return strconv.FormatFloat(value, 'f', -1, 64) + " transactions"
	case Failures:
		return strconv.FormatFloat(value*100, 'f', 3, 64) + "%"
	}
	return strconv.FormatFloat(value, 'f', 3, 64) + " tps"
}
