package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/run/series"
)

// SeriesChart is one chart of a series report.
type SeriesChart struct {
	// Name is the SVG file name the markdown report links to; Title its
	// caption.
	Name, Title string
	svg         interface{ WriteSVG(io.Writer) error }
}

// WriteSVG writes the chart as an SVG document.
func (c SeriesChart) WriteSVG(w io.Writer) error { return c.svg.WriteSVG(w) }

// SeriesText writes the summary gbench curve, slo and ab print at their
// end: the points, the knee, the search's answer or the verdict, and the
// runs disturbed by the servers.
func SeriesText(w io.Writer, r *series.Result) error { return newSeriesDoc(r, false).text(w) }

// SeriesMarkdown writes the markdown report of a series result, linking
// the charts SeriesCharts returns, which the caller writes next to it.
func SeriesMarkdown(w io.Writer, r *series.Result) error { return newSeriesDoc(r, true).markdown(w) }

// SeriesHTML writes the report as one self-contained HTML page: the same
// tables, the charts inline as SVG, no script and nothing loaded from
// elsewhere.
func SeriesHTML(w io.Writer, r *series.Result) error { return newSeriesDoc(r, true).html(w) }

// SeriesCharts returns the charts of a series report, in order.
func SeriesCharts(r *series.Result) []SeriesChart { return newSeriesDoc(r, true).charts }

// newSeriesDoc builds the report; full adds the charts, the context and
// every run.
func newSeriesDoc(r *series.Result, full bool) *sdoc {
	d := &sdoc{}
	switch r.Kind {
	case series.KindCurve:
		curveDoc(d, r, full)
	case series.KindSLO:
		sloDoc(d, r, full)
	case series.KindAB:
		abDoc(d, r, full)
	}
	disturbances(d, r)
	if full {
		planDoc(d, r)
		contextDoc(d, r.Context)
		runsDoc(d, r)
		waitsDoc(d, r)
	}
	return d
}

// curveDoc describes a curve.
func curveDoc(d *sdoc, r *series.Result, full bool) {
	c := r.Curve
	if c.Loop == "open" {
		d.title = "Open-loop curve: latency against offered rate"
		openCurveTable(d, r)
		if full {
			d.addChart(openLatencyChart(r))
			d.addChart(achievedChart(r))
		}
		return
	}
	d.title = "Closed-loop curve: throughput against clients"
	d.heading("Points")
	d.para("Medians of %d runs per point, [min–max] ranges; latency in ms.", r.Plan.Repeats)
	t := newTable("clients", "tps", "tps range", "p50", "p99", "p99 range", "p99.9", "failed", "runs").alignRight(0, 1, 2, 3, 4, 5, 6, 7, 8)
	for _, p := range c.Points {
		if p.Runs == 0 {
			t.add(fmt.Sprint(p.Clients), "—", "—", "—", "—", "—", "—", "—", runsCell(p))
			continue
		}
		t.add(fmt.Sprint(p.Clients), f1(p.TPS.Median), rangeCell(p.TPS, f1), ms(p.P50Us.Median), ms(p.P99Us.Median),
			rangeCell(p.P99Us, ms), ms(p.P999Us.Median), f0(p.Failed.Median), runsCell(p))
	}
	d.addTable(t)
	noisyPoints(d, c.Points)
	d.heading("Knee")
	if k := c.Knee; k != nil {
		d.para("Knee: %d clients, %s tps (plateau %s tps; a point within %.0f%% of the plateau is on it).",
			k.Clients, f1(k.TPS), f1(k.PlateauTPS), 100*k.Tolerance)
		d.para("Working point: 60–70%% of the knee's throughput, %s–%s tps: run production there, or measure it with gbench curve --rates (open loop).",
			f1(k.WorkLowTPS), f1(k.WorkHighTPS))
		if k.DeclineClients > 0 {
			d.warn("throughput falls past the knee: %s tps at %d clients (overload)", f1(k.DeclineTPS), k.DeclineClients)
		}
	} else {
		d.para("No knee: %s.", c.KneeNote)
	}
	if full {
		d.addChart(throughputCurveChart(r))
		d.addChart(latencyCurveChart(r))
	}
}

// noisyPoints warns when the runs of a point spread over more than
// series.DefaultNoise of their median: a noisy environment.
func noisyPoints(d *sdoc, points []series.Point) {
	var noisy []string
	worst := 0.0
	for _, p := range points {
		if sp := p.TPS.Spread(); p.Runs > 1 && sp > series.DefaultNoise {
			noisy = append(noisy, p.Load.String())
			worst = max(worst, sp)
		}
	}
	if len(noisy) > 0 {
		d.warn("noisy environment: the runs of %d of %d points spread over more than %.0f%% of their median (%s; up to %.0f%%); compare medians with care, or rerun on a quieter machine",
			len(noisy), len(points), 100*series.DefaultNoise, strings.Join(noisy, ", "), 100*worst)
	}
}

// openCurveTable lists the points of an open-loop curve.
func openCurveTable(d *sdoc, r *series.Result) {
	d.heading("Points")
	d.para("Medians of %d runs per offered rate, with %d clients; [min–max] ranges; latency from the scheduled start, in ms.",
		r.Plan.Repeats, clientsOf(r))
	t := newTable("offered tps", "achieved tps", "achieved range", "p50", "p99", "p99 range", "lag mean", "lag max", "skipped", "failed", "runs").
		alignRight(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	for _, p := range r.Curve.Points {
		if p.Runs == 0 {
			t.add(g(p.Rate), "—", "—", "—", "—", "—", "—", "—", "—", "—", runsCell(p))
			continue
		}
		lagMean, lagMax := "—", "—"
		if p.LagMeanUs != nil {
			lagMean, lagMax = ms(p.LagMeanUs.Median), ms(p.LagMaxUs.Median)
		}
		t.add(g(p.Rate), f1(p.TPS.Median), rangeCell(p.TPS, f1), ms(p.P50Us.Median), ms(p.P99Us.Median), rangeCell(p.P99Us, ms),
			lagMean, lagMax, f0(p.Skipped.Median), f0(p.Failed.Median), runsCell(p))
	}
	d.addTable(t)
	noisyPoints(d, r.Curve.Points)
}

// sloDoc describes an SLO search and its evidence.
func sloDoc(d *sdoc, r *series.Result, full bool) {
	s := r.SLO
	d.title = "SLO search: " + s.Objective.Text
	d.heading("Answer")
	switch s.Outcome {
	case series.OutcomeFound, series.OutcomeEverywhere:
		d.para("Highest rate meeting %s with %d clients: %s tps (%s).", s.Objective.Text, s.Clients, g(s.RateTPS), s.Outcome)
	case series.OutcomeNowhere:
		d.para("No rate tried meets %s with %d clients (%s).", s.Objective.Text, s.Clients, s.Outcome)
	default:
		d.para("The search did not finish (%s).", s.Outcome)
	}
	d.para("%s.", s.Note)
	if s.CapacityTPS > 0 {
		d.para("Range searched: %s–%s tps; the top is the closed-loop capacity of the clients (%s tps). Bisection stops at %.0f%%; the answer is confirmed by %d repeats (their median must meet the objective).",
			g(s.LowTPS), g(s.HighTPS), f1(s.CapacityTPS), 100*s.Resolution, s.Repeats)
	} else {
		d.para("Range searched: %s–%s tps. Bisection stops at %.0f%%; the answer is confirmed by %d repeats (their median must meet the objective).",
			g(s.LowTPS), g(s.HighTPS), 100*s.Resolution, s.Repeats)
	}
	d.heading("Evidence: every probe")
	name := s.Objective.Name()
	t := newTable("#", "stage", "offered tps", "achieved tps", name+" ms", "failures", "lag mean ms", "meets").alignRight(0, 2, 3, 4, 5, 6)
	for i, p := range s.Probes {
		run := runAt(r, p.Run)
		lag, achieved := "—", "—"
		if run != nil {
			achieved = f1(run.TPS)
			if run.Lag != nil {
				lag = ms(run.Lag.MeanUs)
			}
		}
		offered, value, meets := g(p.RateTPS), ms(p.ValueUs), yesNo(p.Meets)
		if p.Stage == "capacity" {
			offered, value, meets = "closed loop", "—", "—"
		}
		t.add(fmt.Sprint(i+1), p.Stage, offered, achieved, value, percent(p.FailureRatio), lag, meets)
	}
	d.addTable(t)
	if full {
		d.addChart(sloChart(r))
	}
}

// abDoc describes an A/B series and its verdict.
func abDoc(d *sdoc, r *series.Result, full bool) {
	a := r.AB
	metric := metricLabel(a.Metric)
	d.title = "A/B series"
	d.heading("Verdict")
	switch a.Verdict {
	case series.VerdictA, series.VerdictB:
		d.para("%s is better on %s: B/A = %.3f.", a.Verdict, metric, a.Ratio)
	case series.VerdictNone:
		d.para("No difference beyond the noise on %s: B/A = %.3f.", metric, a.Ratio)
	default:
		d.para("No verdict: too few valid runs.")
	}
	d.para("%s.", a.Reason)
	if a.Noisy {
		d.warn("noisy environment: the runs of one side differ by %.1f%% of their median (threshold %.0f%%); rerun on a quieter machine or with more repeats", 100*a.Noise, 100*a.NoiseThreshold)
	}
	d.heading("Sides")
	d.para("%d interleaved runs per side; medians and [min–max] ranges; latency in ms.", r.Plan.Repeats)
	t := newTable("side", "what differs", "runs", metric, "range", "spread", "tps", "p99").alignRight(2, 3, 4, 5, 6, 7)
	format := f1
	if !a.HigherIsBetter {
		format = ms
	}
	for _, s := range []*series.Side{&a.A, &a.B} {
		t.add(s.Variant, sideWhat(s), fmt.Sprint(s.Point.Runs), format(s.Value.Median), rangeCell(s.Value, format),
			fmt.Sprintf("%.1f%%", 100*s.Value.Spread()), f1(s.Point.TPS.Median), ms(s.Point.P99Us.Median))
	}
	d.addTable(t)
	if full {
		d.addChart(abBars(r))
		d.addChart(abRounds(r))
	}
}

// metricLabel names an A/B metric as the report shows it: a latency
// metric is kept in microseconds ("p99_us") but shown in milliseconds,
// as the table's "latency in ms" says.
func metricLabel(m string) string {
	return strings.TrimSuffix(m, "_us")
}

// sideWhat says what makes a side: its settings, or its command line.
func sideWhat(s *series.Side) string {
	if s.Build != "" {
		v := "build " + s.Build
		if s.Context != nil && s.Context.Postgres != nil {
			v += " (PostgreSQL " + s.Context.Postgres.Version + ")"
		}
		return v
	}
	if len(s.Settings) > 0 {
		return strings.Join(s.Settings, ", ")
	}
	return strings.Join(s.Command, " ")
}

// disturbances lists the runs during which the servers did something
// that could explain an outlier.
func disturbances(d *sdoc, r *series.Result) {
	var lines []string
	for i := range r.Runs {
		run := &r.Runs[i]
		for _, w := range run.Warnings {
			lines = append(lines, fmt.Sprintf("run %d (%s, repeat %d): %s", run.Order+1, run.Load, run.Repeat, w))
		}
	}
	d.heading("Disturbances")
	if len(lines) == 0 {
		d.para("No checkpoint, autovacuum or Redis background save fell inside a measured run.")
		return
	}
	for _, l := range lines {
		d.warn("%s", l)
	}
}

// planDoc shows the plan and the command lines.
func planDoc(d *sdoc, r *series.Result) {
	p := &r.Plan
	d.heading("Plan")
	d.para("%d runs of %s s each, warm-up %s s, seed %d (the same seed replays the order); started %s, ended %s.",
		len(r.Runs), g(p.DurationS), g(p.WarmupS), p.Seed, r.Start.Format("2006-01-02 15:04:05 MST"), r.End.Format("15:04:05"))
	if r.Partial {
		d.warn("partial result: the series was stopped before its end")
	}
	for _, v := range []string{"", "A", "B"} {
		if cmd, ok := p.Commands[v]; ok {
			label := "Command"
			if v != "" {
				label = "Command " + v
			}
			d.para("%s:", label)
			d.code(strings.Join(cmd, " "))
		}
	}
}

// contextDoc shows who measured on what, against which servers.
func contextDoc(d *sdoc, c *runenv.Context) {
	if c == nil {
		return
	}
	d.heading("Context")
	t := newTable("what", "value")
	t.add("gbench", c.Gbench.Version+" ("+c.Gbench.Go+")")
	t.add("client CPU", fmt.Sprintf("%s, %d cores", orDash(c.Client.CPUModel), c.Client.Cores))
	t.add("client kernel", c.Client.OS.Sysname+" "+c.Client.OS.Release+" "+c.Client.OS.Machine)
	if len(c.Client.Load) == 3 {
		t.add("load average at start", fmt.Sprintf("%.2f %.2f %.2f", c.Client.Load[0], c.Client.Load[1], c.Client.Load[2]))
	}
	if c.Postgres != nil {
		t.add("PostgreSQL", c.Postgres.Version)
		d := c.Postgres.Durability
		if d == "" { // results of earlier versions: their settings say it
			m := map[string]string{}
			for _, x := range c.Postgres.Settings {
				m[x.Name] = x.Value
			}
			d = schema.DurabilityOf(m)
		}
		t.add("PostgreSQL durability", orDash(d))
	}
	if c.Redis != nil {
		t.add("Redis", c.Redis.Version)
	}
	d.addTable(t)
	for _, n := range c.Notes {
		d.warn("%s", n)
	}
	if c.Postgres != nil && len(c.Postgres.Settings) > 0 {
		d.para("PostgreSQL settings that differ from their defaults:")
		s := newTable("setting", "value", "source")
		for _, x := range c.Postgres.Settings {
			s.add(x.Name, x.Value, x.Source)
		}
		d.addTable(s)
	}
	if c.Redis != nil && len(c.Redis.Settings) > 0 {
		d.para("Redis settings (CONFIG GET):")
		s := newTable("setting", "value")
		for _, x := range c.Redis.Settings {
			s.add(x.Name, x.Value)
		}
		d.addTable(s)
	}
}

// runsDoc lists every run in the order it ran.
func runsDoc(d *sdoc, r *series.Result) {
	d.heading("Every run")
	t := newTable("#", "load", "repeat", "tps", "p50", "p99", "failed", "skipped", "WAL", "checkpoints", "autovacuum", "error").
		alignRight(0, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	for i := range r.Runs {
		run := &r.Runs[i]
		wal, ckpt, av := "—", "—", "—"
		if a := run.Activity; a != nil && a.Postgres != nil {
			if a.Postgres.WALBytes != nil {
				wal = bytesText(*a.Postgres.WALBytes)
			}
			ckpt = fmt.Sprint(a.Postgres.Checkpoints)
			av = fmt.Sprint(a.Postgres.Autovacuums + a.Postgres.Autoanalyzes)
		}
		t.add(fmt.Sprint(run.Order+1), run.Load.String(), fmt.Sprint(run.Repeat), f1(run.TPS), ms(float64(run.Latency.P50Us)),
			ms(float64(run.Latency.P99Us)), fmt.Sprint(run.Failed), fmt.Sprint(run.Skipped), wal, ckpt, av, orDash(run.Error))
	}
	d.addTable(t)
}

// waitsDoc lists each run's top wait events, when the runs sampled them
// (--wait-events in the command line).
func waitsDoc(d *sdoc, r *series.Result) {
	t := newTable("#", "load", "repeat", "reads", "top wait events", "sampler's cost").alignRight(0, 2, 3)
	any := false
	for i := range r.Runs {
		run := &r.Runs[i]
		a := run.Activity
		if a == nil || (a.WaitEvents == nil && a.WaitEventsNote == "") {
			continue
		}
		any = true
		if a.WaitEvents == nil {
			t.add(fmt.Sprint(run.Order+1), run.Load.String(), fmt.Sprint(run.Repeat), "—", "— ("+a.WaitEventsNote+")", "—")
			continue
		}
		w := a.WaitEvents
		var top []string
		for j, e := range w.Events {
			if j == topWaits {
				break
			}
			top = append(top, fmt.Sprintf("%s %.0f%%", e.Name(), e.Share*100))
		}
		t.add(fmt.Sprint(run.Order+1), run.Load.String(), fmt.Sprint(run.Repeat), fmt.Sprint(w.Reads), orDash(strings.Join(top, ", ")),
			fmt.Sprintf("%.1f queries/s", w.Cost.QueriesPerS))
	}
	if !any {
		return
	}
	d.heading("Wait events")
	d.para("PostgreSQL's wait states during each run: pg_stat_activity read at a fixed interval on a connection of its own, each client backend of the database but the sampler's counted once per read; the most frequent, with their share of the backend reads (`CPU`: active, waiting for nothing; `(idle)`: between transactions).")
	d.addTable(t)
}

// runAt returns the run with order i.
func runAt(r *series.Result, i int) *series.Run {
	if i >= 0 && i < len(r.Runs) && r.Runs[i].Order == i {
		return &r.Runs[i]
	}
	for j := range r.Runs {
		if r.Runs[j].Order == i {
			return &r.Runs[j]
		}
	}
	return nil
}

// clientsOf is the client count of a single-client-count series.
func clientsOf(r *series.Result) int {
	if len(r.Plan.Loads) > 0 {
		return r.Plan.Loads[0].Clients
	}
	return 0
}

func runsCell(p series.Point) string {
	s := fmt.Sprint(p.Runs)
	if p.Invalid > 0 {
		s += fmt.Sprintf(" (+%d failed)", p.Invalid)
	}
	if p.Disturbed > 0 {
		s += fmt.Sprintf(" (%d disturbed)", p.Disturbed)
	}
	return s
}

func rangeCell(s series.Stat, f func(float64) string) string { return f(s.Min) + "–" + f(s.Max) }

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f0(v float64) string { return fmt.Sprintf("%.0f", v) }
func g(v float64) string  { return fmt.Sprintf("%g", v) }
func percent(v float64) string {
	return fmt.Sprintf("%.2f%%", 100*v)
}

// ms writes microseconds as milliseconds with about three significant
// digits.
func ms(us float64) string {
	return strings.TrimSuffix(series.Ms(us), " ms")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// bytesText writes a byte count with a binary unit.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// chartOf wraps a chart.
func chartOf(name, title string, c interface{ WriteSVG(io.Writer) error }) SeriesChart {
	return SeriesChart{Name: name, Title: title, svg: c}
}
