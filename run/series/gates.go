package series

import (
	"math"

	"github.com/gbench/gbench/result/gate"
)

// PointGates are a curve point's verdicts on the thresholds of gbench
// curve --threshold: each figure is the median over the point's valid
// repeats, as an SLO search confirms a rate.
type PointGates struct {
	Load     Load           `json:"load"`
	Verdicts []gate.Verdict `json:"verdicts"`
}

// CheckPoints checks thresholds (over the whole run: a series keeps no
// per-script figures) against each load's valid runs.
func CheckPoints(runs []Run, loads []Load, ts []gate.Threshold) []PointGates {
	var out []PointGates
	for _, l := range loads {
		var mine []*Run
		for i := range runs {
			if runs[i].Load == l && runs[i].Valid() {
				mine = append(mine, &runs[i])
			}
		}
		out = append(out, PointGates{Load: l, Verdicts: gate.Check(ts, medianFigures(mine), nil)})
	}
	return out
}

// medianFigures are the medians of runs' figures; NaN throughput and no
// latency when there is no run.
func medianFigures(runs []*Run) gate.Figures {
	var tps, fail, failed, mean, lag []float64
	for _, r := range runs {
		tps, fail = append(tps, r.TPS), append(fail, r.FailureRatio())
		failed, mean = append(failed, float64(r.Failed+r.Skipped)), append(mean, r.Latency.MeanUs)
		if r.Lag != nil {
			lag = append(lag, r.Lag.MeanUs)
		}
	}
	f := gate.Figures{TPS: Median(tps), Failures: Median(fail), Failed: Median(failed)}
	if len(runs) == 0 {
		f.TPS, f.Failures, f.Failed = math.NaN(), math.NaN(), math.NaN()
	}
	f.Mean = func() (float64, bool) { return Median(mean), len(runs) > 0 }
	f.Lag = func() (float64, bool) { return Median(lag), len(lag) > 0 }
	f.Latency = func(p float64) (float64, bool) {
		var xs []float64
		for _, r := range runs {
			if v, err := r.Latency.Percentile(p); err == nil {
				xs = append(xs, float64(v))
			}
		}
		if len(xs) == 0 {
			return 0, false
		}
		return Median(xs), true
	}
	return f
}
