package series

// Point sums up the valid runs of one load: the median of each figure
// and its range.
type Point struct {
	Load
	// Runs is the number of valid runs summed up; 0 when none is, and
	// then every figure is zero.
	Runs int `json:"runs"`
	// Invalid counts the load's runs that failed or were interrupted.
	Invalid int  `json:"invalid_runs,omitempty"`
	TPS     Stat `json:"tps"`
	P50Us   Stat `json:"p50_us"`
	P90Us   Stat `json:"p90_us"`
	P99Us   Stat `json:"p99_us"`
	P999Us  Stat `json:"p99_9_us"`
	MaxUs   Stat `json:"max_us"`
	// LagMeanUs and LagMaxUs are the schedule lag of open-loop runs.
	LagMeanUs *Stat `json:"lag_mean_us,omitempty"`
	LagMaxUs  *Stat `json:"lag_max_us,omitempty"`
	Failed    Stat  `json:"failed"`
	Skipped   Stat  `json:"skipped"`
	// Disturbed counts the runs during which a checkpoint, autovacuum or
	// Redis fork ran (their Warnings say which).
	Disturbed int `json:"disturbed_runs"`
}

// Summarize sums up the runs of l among runs.
func Summarize(runs []Run, l Load) Point {
	p := Point{Load: l}
	var tps, p50, p90, p99, p999, mx, lagMean, lagMax, failed, skipped []float64
	for i := range runs {
		r := &runs[i]
		if r.Load != l {
			continue
		}
		if !r.Valid() {
			p.Invalid++
			continue
		}
		tps = append(tps, r.TPS)
		la := &r.Latency
		p50, p90 = append(p50, float64(la.P50Us)), append(p90, float64(la.P90Us))
		p99, p999 = append(p99, float64(la.P99Us)), append(p999, float64(la.P999Us))
		mx = append(mx, float64(la.MaxUs))
		failed, skipped = append(failed, float64(r.Failed)), append(skipped, float64(r.Skipped))
		if r.Lag != nil {
			lagMean, lagMax = append(lagMean, r.Lag.MeanUs), append(lagMax, r.Lag.MaxUs)
		}
		if len(r.Warnings) > 0 {
			p.Disturbed++
		}
	}
	p.Runs = len(tps)
	p.TPS, p.P50Us, p.P90Us, p.P99Us = NewStat(tps), NewStat(p50), NewStat(p90), NewStat(p99)
	p.P999Us, p.MaxUs, p.Failed, p.Skipped = NewStat(p999), NewStat(mx), NewStat(failed), NewStat(skipped)
	if len(lagMean) > 0 {
		m, x := NewStat(lagMean), NewStat(lagMax)
		p.LagMeanUs, p.LagMaxUs = &m, &x
	}
	return p
}

// Points sums up runs for each load, in the order of loads.
func Points(runs []Run, loads []Load) []Point {
	out := make([]Point, 0, len(loads))
	for _, l := range loads {
		out = append(out, Summarize(runs, l))
	}
	return out
}
