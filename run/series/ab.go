package series

import (
	"fmt"
	"math"
	"math/big"

	"github.com/gbench/gbench/run/runenv"
)

// DefaultNoise is the spread above which a side's runs are flagged as a
// noisy environment: runs of one configuration that differ by more than
// 5% of their median.
const DefaultNoise = 0.05

// MinABRuns is the fewest valid runs per side for a verdict.
const MinABRuns = 3

// Verdicts of an A/B series.
const (
	VerdictA      = "A"    // A is better
	VerdictB      = "B"    // B is better
	VerdictNone   = "none" // no difference beyond the noise
	VerdictTooFew = "too-few-runs"
)

// AB is the analysis of an A/B series.
type AB struct {
	// Metric is what the verdict compares: "tps" (higher is better) or a
	// latency percentile such as "p99_us" (lower is better), medians of
	// each side's runs.
	Metric         string `json:"metric"`
	HigherIsBetter bool   `json:"higher_is_better"`
	A              Side   `json:"a"`
	B              Side   `json:"b"`
	// Ratio is B's median over A's.
	Ratio float64 `json:"ratio"`
	// Noise is the larger of the two sides' spreads ((max - min) /
	// median); NoiseThreshold is the spread above which the environment
	// is flagged as noisy.
	Noise          float64 `json:"noise"`
	NoiseThreshold float64 `json:"noise_threshold"`
	Noisy          bool    `json:"noisy"`
	// Verdict is "A" or "B" (that side is better), "none" (no difference
	// beyond the noise) or "too-few-runs"; Reason says why in words.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Chance is the probability that the ranges of the two sides do not
	// overlap when there is no difference at all (every order of the runs
	// equally likely): 2 / C(nA+nB, nA).
	Chance float64 `json:"chance"`
	// MaxRegression is gbench ab --max-regression: how much worse than
	// A's median B's may be on the metric, as a fraction of A's (0.05: a
	// tps at most 5% lower, a latency at most 5% higher); absent without
	// it. Regression is how much worse B's median was (negative: better);
	// Regressed is set when it exceeds MaxRegression, or when a side has
	// no valid run to compare.
	MaxRegression *float64 `json:"max_regression,omitempty"`
	Regression    *float64 `json:"regression,omitempty"`
	Regressed     bool     `json:"regressed,omitempty"`
}

// CheckRegression checks B's median against A's with the largest
// regression allowed, a fraction of A's median.
func (r *AB) CheckRegression(allowed float64) {
	r.MaxRegression = &allowed
	a, b := r.A.Value.Median, r.B.Value.Median
	if r.A.Point.Runs == 0 || r.B.Point.Runs == 0 || a == 0 {
		r.Regressed = true
		return
	}
	reg := (b - a) / a
	if r.HigherIsBetter {
		reg = -reg
	}
	r.Regression = &reg
	r.Regressed = reg > allowed
}

// Side is one side of an A/B series.
type Side struct {
	Load
	// Command is the side's gbench command line; Settings the server
	// settings applied before each of its runs.
	Command  []string `json:"command"`
	Settings []string `json:"settings,omitempty"`
	// Build is the bin directory of the PostgreSQL build the side ran
	// against, in a throwaway server; empty otherwise.
	Build string `json:"build,omitempty"`
	// Context describes the side's servers.
	Context *runenv.Context `json:"context,omitempty"`
	Point   Point           `json:"point"`
	// Value is the metric over the side's valid runs.
	Value Stat `json:"value"`
}

// NewAB compares the runs of two loads on metric ("tps", or a
// percentile "p50", "p99", "p99.9", "max" of latency) with the noise
// threshold noise.
func NewAB(runs []Run, a, b Side, metric string, noise float64) (*AB, error) {
	if metric != "tps" {
		if _, err := MetricPercentile(metric); err != nil {
			return nil, err
		}
	}
	r := &AB{Metric: metric, HigherIsBetter: metric == "tps", A: a, B: b, NoiseThreshold: noise}
	if !r.HigherIsBetter {
		r.Metric = metric + "_us"
	}
	var err error
	for _, s := range []*Side{&r.A, &r.B} {
		s.Point = Summarize(runs, s.Load)
		if s.Value, err = metricStat(runs, s.Load, metric); err != nil {
			return nil, err
		}
	}
	r.decide()
	return r, nil
}

// metricStat sums up one metric over the valid runs of l.
func metricStat(runs []Run, l Load, metric string) (Stat, error) {
	var xs []float64
	for i := range runs {
		run := &runs[i]
		if run.Load != l || !run.Valid() {
			continue
		}
		if metric == "tps" {
			xs = append(xs, run.TPS)
			continue
		}
		p, err := MetricPercentile(metric)
		if err != nil {
			return Stat{}, err
		}
		v, err := run.Latency.Percentile(p)
		if err != nil {
			return Stat{}, err
		}
		xs = append(xs, float64(v))
	}
	return NewStat(xs), nil
}

// MetricPercentile reads a latency metric name: "p99" is 99, "max" 100.
func MetricPercentile(metric string) (float64, error) {
	if metric == "max" {
		return 100, nil
	}
	o, err := ParseObjective(metric + "<=1s")
	if err != nil {
		return 0, fmt.Errorf("invalid metric %q: expected tps, max or a percentile like p99", metric)
	}
	return o.Percentile, nil
}

// decide sets the verdict. A difference is called only when every run of
// the better side beats every run of the other (the ranges do not
// overlap) and the larger median exceeds the smaller by more than the
// noise.
func (r *AB) decide() {
	a, b := r.A.Value, r.B.Value
	na, nb := r.A.Point.Runs, r.B.Point.Runs
	r.Noise = max(a.Spread(), b.Spread())
	r.Noisy = r.Noise > r.NoiseThreshold
	if a.Median != 0 {
		r.Ratio = b.Median / a.Median
	}
	if na < MinABRuns || nb < MinABRuns {
		r.Verdict = VerdictTooFew
		r.Reason = fmt.Sprintf("A has %d valid runs and B %d; a verdict needs at least %d each", na, nb, MinABRuns)
		return
	}
	r.Chance = 2 / binomial(na+nb, na)
	// How much the larger median exceeds the smaller, whichever side it is.
	diff := math.Inf(1)
	if lo := min(a.Median, b.Median); lo > 0 {
		diff = max(a.Median, b.Median)/lo - 1
	}
	switch {
	case a.Max >= b.Min && b.Max >= a.Min:
		r.Verdict = VerdictNone
		r.Reason = fmt.Sprintf("the runs of A (%s) and B (%s) overlap", rangeText(a), rangeText(b))
	case diff <= r.Noise:
		r.Verdict = VerdictNone
		r.Reason = fmt.Sprintf("the difference of the medians (%.1f%%) is within the noise (%.1f%%)", 100*diff, 100*r.Noise)
	default:
		better := (b.Median > a.Median) == r.HigherIsBetter
		r.Verdict = VerdictA
		if better {
			r.Verdict = VerdictB
		}
		r.Reason = fmt.Sprintf("every run of %s beats every run of the other side, and the medians differ by %.1f%%, beyond the noise (%.1f%%); with no real difference this happens with probability %.1f%%",
			r.Verdict, 100*diff, 100*r.Noise, 100*r.Chance)
	}
	if r.Noisy {
		r.Reason += fmt.Sprintf("; NOISY ENVIRONMENT: runs of one side differ by %.1f%% (above %.0f%%)", 100*r.Noise, 100*r.NoiseThreshold)
	}
}

// rangeText writes a range compactly.
func rangeText(s Stat) string { return fmt.Sprintf("%.4g–%.4g", s.Min, s.Max) }

// binomial is C(n, k).
func binomial(n, k int) float64 {
	f, _ := new(big.Float).SetInt(new(big.Int).Binomial(int64(n), int64(k))).Float64()
	return f
}
