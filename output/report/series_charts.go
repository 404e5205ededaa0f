package report

import (
	"fmt"

	"github.com/gbench/gbench/output/chart"
	"github.com/gbench/gbench/run/series"
)

// Chart file names of series reports.
const (
	CurveTPSChart     = "curve-tps.svg"
	CurveLatencyChart = "curve-latency.svg"
	OpenLatencyChart  = "curve-latency-rate.svg"
	OpenAchievedChart = "curve-achieved.svg"
	SLOChart          = "slo.svg"
	ABChart           = "ab.svg"
	ABRoundsChart     = "ab-rounds.svg"
)

// throughputCurveChart is tps against clients, the knee marked and the
// working point drawn as two rules.
func throughputCurveChart(r *series.Result) SeriesChart {
	c := &chart.Line{Title: "Throughput against clients", XLabel: "clients", YLabel: "tps (median of runs)",
		Unit: "tps", Format: chart.SI}
	s := chart.Series{Name: "tps"}
	for i, p := range r.Curve.Points {
		c.Categories = append(c.Categories, fmt.Sprint(p.Clients))
		s.Points = append(s.Points, chart.Point{Y: p.TPS.Median, Lo: p.TPS.Min, Hi: p.TPS.Max, Valid: p.Runs > 0})
		if k := r.Curve.Knee; k != nil && k.Clients == p.Clients {
			c.Marks = append(c.Marks, chart.Mark{At: float64(i), Label: fmt.Sprintf("knee: %d clients", k.Clients)})
			c.Rules = append(c.Rules,
				chart.Rule{Y: k.WorkHighTPS, Label: "70% of the knee"},
				chart.Rule{Y: k.WorkLowTPS, Label: "60% of the knee"})
		}
	}
	c.Series = []chart.Series{s}
	return chartOf(CurveTPSChart, c.Title, c)
}

// latencyCurveChart is p50 and p99 against clients.
func latencyCurveChart(r *series.Result) SeriesChart {
	c := &chart.Line{Title: "Latency against clients", XLabel: "clients", YLabel: "latency, ms (median of runs)",
		LegendTitle: "percentile", Unit: "ms", Format: msFormat}
	p50, p99 := chart.Series{Name: "p50"}, chart.Series{Name: "p99"}
	for _, p := range r.Curve.Points {
		c.Categories = append(c.Categories, fmt.Sprint(p.Clients))
		p50.Points = append(p50.Points, msPoint(p.P50Us, p.Runs > 0, 0))
		p99.Points = append(p99.Points, msPoint(p.P99Us, p.Runs > 0, 0))
	}
	c.Series = []chart.Series{p50, p99}
	return chartOf(CurveLatencyChart, c.Title, c)
}

// openLatencyChart is p50 and p99 against the offered rate.
func openLatencyChart(r *series.Result) SeriesChart {
	c := &chart.Line{Title: "Latency against offered rate", XLabel: "offered rate, tps", YLabel: "latency, ms (median of runs)",
		LegendTitle: "percentile", Unit: "ms", Format: msFormat, Numeric: true, XUnit: "tps"}
	p50, p99 := chart.Series{Name: "p50"}, chart.Series{Name: "p99"}
	for _, p := range r.Curve.Points {
		p50.Points = append(p50.Points, msPoint(p.P50Us, p.Runs > 0, p.Rate))
		p99.Points = append(p99.Points, msPoint(p.P99Us, p.Runs > 0, p.Rate))
	}
	c.Series = []chart.Series{p50, p99}
	return chartOf(OpenLatencyChart, c.Title, c)
}

// achievedChart is the achieved rate against the offered one, with the
// offered rate itself as the line a system keeping up follows.
func achievedChart(r *series.Result) SeriesChart {
	c := &chart.Line{Title: "Achieved against offered rate", XLabel: "offered rate, tps", YLabel: "tps",
		Unit: "tps", Numeric: true, XUnit: "tps"}
	got, want := chart.Series{Name: "achieved"}, chart.Series{Name: "offered"}
	for _, p := range r.Curve.Points {
		got.Points = append(got.Points, chart.Point{X: p.Rate, Y: p.TPS.Median, Lo: p.TPS.Min, Hi: p.TPS.Max, Valid: p.Runs > 0})
		want.Points = append(want.Points, chart.Point{X: p.Rate, Y: p.Rate, Valid: true})
	}
	c.Series = []chart.Series{got, want}
	return chartOf(OpenAchievedChart, c.Title, c)
}

// sloChart is the objective's percentile of every probe against its
// offered rate, the objective as a rule and the answer as a mark.
func sloChart(r *series.Result) SeriesChart {
	s := r.SLO
	name := s.Objective.Name()
	c := &chart.Line{Title: name + " against offered rate: " + s.Objective.Text, XLabel: "offered rate, tps",
		YLabel: name + ", ms", LegendTitle: "probe", Unit: "ms", Format: msFormat, Numeric: true, XUnit: "tps"}
	search, confirm := chart.Series{Name: "search", Dots: true}, chart.Series{Name: "confirm", Dots: true}
	for _, p := range s.Probes {
		pt := chart.Point{X: p.RateTPS, Y: p.ValueUs / 1000, Valid: true}
		switch p.Stage {
		case "search":
			search.Points = append(search.Points, pt)
		case "confirm":
			confirm.Points = append(confirm.Points, pt)
		}
	}
	c.Series = []chart.Series{search, confirm}
	c.Rules = []chart.Rule{{Y: s.Objective.BoundUs / 1000, Label: "objective: " + s.Objective.Text}}
	if s.RateTPS > 0 {
		c.Marks = []chart.Mark{{At: s.RateTPS, Label: "answer: " + g(s.RateTPS) + " tps"}}
	}
	return chartOf(SLOChart, c.Title, c)
}

// abBars is each side's median of the metric with its range.
func abBars(r *series.Result) SeriesChart {
	a := r.AB
	unit, format, scale := "tps", chart.SI, 1.0
	if !a.HigherIsBetter {
		unit, format, scale = "ms", msFormat, 1e-3
	}
	c := &chart.Bars{Title: "A/B: " + a.Metric + ", median and range", YLabel: a.Metric, LegendTitle: "side",
		Groups: []string{a.Metric}, Unit: unit, Format: format}
	for _, s := range []*series.Side{&a.A, &a.B} {
		c.Series = append(c.Series, chart.BarSeries{Name: s.Variant, Values: []float64{s.Value.Median * scale},
			Lo: []float64{s.Value.Min * scale}, Hi: []float64{s.Value.Max * scale}})
	}
	return chartOf(ABChart, c.Title, c)
}

// abRounds is the metric of each run, round by round: drifts of the
// machine show as both lines moving together.
func abRounds(r *series.Result) SeriesChart {
	a := r.AB
	c := &chart.Line{Title: "A/B: " + a.Metric + " of each run, in running order", XLabel: "round", YLabel: a.Metric,
		LegendTitle: "side", Format: chart.SI}
	scale := 1.0
	if !a.HigherIsBetter {
		c.Format, c.Unit, scale = msFormat, "ms", 1e-3
	}
	for i := range r.Plan.Repeats {
		c.Categories = append(c.Categories, fmt.Sprint(i+1))
	}
	pct, _ := series.MetricPercentile(a.Metric[:max(len(a.Metric)-3, 0)])
	for _, s := range []*series.Side{&a.A, &a.B} {
		line := chart.Series{Name: s.Variant, Points: make([]chart.Point, r.Plan.Repeats)}
		for i := range r.Runs {
			run := &r.Runs[i]
			if run.Load != s.Load || !run.Valid() || run.Repeat < 1 || run.Repeat > r.Plan.Repeats {
				continue
			}
			v := run.TPS
			if !a.HigherIsBetter {
				us, err := run.Latency.Percentile(pct)
				if err != nil {
					continue
				}
				v = float64(us)
			}
			line.Points[run.Repeat-1] = chart.Point{Y: v * scale, Valid: true}
		}
		c.Series = append(c.Series, line)
	}
	return chartOf(ABRoundsChart, c.Title, c)
}

// msPoint is a latency Stat in microseconds as a point in ms.
func msPoint(s series.Stat, valid bool, x float64) chart.Point {
	return chart.Point{X: x, Y: s.Median / 1000, Lo: s.Min / 1000, Hi: s.Max / 1000, Valid: valid}
}

// msFormat writes milliseconds with three significant digits.
func msFormat(v float64) string { return ms(v * 1000) }
