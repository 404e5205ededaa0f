package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gbench/gbench/output/chart"
	"github.com/gbench/gbench/result/schema"
)

// ThroughputChart is the file name of the req/s chart for keys per
// request.
func ThroughputChart(keys int) string { return fmt.Sprintf("reqs-keys%d.svg", keys) }

// LatencyChart is the file name of the latency chart for keys per request.
func LatencyChart(keys int) string { return fmt.Sprintf("latency-keys%d.svg", keys) }

// The charts of a plan that is not the read matrix's shape, and of
// series.
const (
	// GridChart is req/s per row and path, GridLatencyChart their p99.
	GridChart        = "reqs.svg"
	GridLatencyChart = "latency-p99.svg"
	// SeriesReqsChart is req/s over time per cell, SeriesHitsChart the hit
	// rate over time.
	SeriesReqsChart = "reqs-over-time.svg"
	SeriesHitsChart = "hits-over-time.svg"
)

// MatrixChart is one chart of a matrix report.
type MatrixChart struct {
	// Name is the file name the report links to.
	Name string
	svg  interface{ WriteSVG(io.Writer) error }
}

// WriteSVG writes the chart as an SVG document.
func (c MatrixChart) WriteSVG(w io.Writer) error { return c.svg.WriteSVG(w) }

// MatrixCharts returns the charts Matrix links, in order: for each keys
// per request, req/s against connections (a line per path, whiskers for
// the min–max of the repeats), then for each keys per request the p50 and
// p99 latency of each path at the highest connection count.
//
// For any other plan: GridChart (req/s per row, a bar per path, whiskers
// for the min–max) and GridLatencyChart (p99 per row and path), then for
// a plan with series SeriesReqsChart and, when a path counts its cache,
// SeriesHitsChart.
//
// Either way the charts of the servers' CPU over time come before the
// series': ServerCPUChart of each grid row whose samples have a CPU
// series.
func MatrixCharts(r *schema.Result) []MatrixChart {
	m := newMatrixDoc(r)
	var out []MatrixChart
	if m.readShape() {
		for _, k := range r.Plan.Keys {
			out = append(out, MatrixChart{Name: ThroughputChart(k), svg: m.throughputChart(k)})
		}
		for _, k := range r.Plan.Keys {
			out = append(out, MatrixChart{Name: LatencyChart(k), svg: m.latencyChart(k)})
		}
	} else {
		out = append(out, MatrixChart{Name: GridChart, svg: m.gridChart(false)}, MatrixChart{Name: GridLatencyChart, svg: m.gridChart(true)})
	}
	for _, cr := range m.cpuRows() {
		out = append(out, MatrixChart{Name: ServerCPUChart(cr.index), svg: cpuChart(m.dims(), cr, len(m.rows()))})
	}
	if all := m.allSeries(); len(all) > 0 {
		out = append(out, MatrixChart{Name: SeriesReqsChart, svg: seriesChart(all, false)})
		if slices.ContainsFunc(all, func(cs cellSeries) bool { return cs.cached }) {
			out = append(out, MatrixChart{Name: SeriesHitsChart, svg: seriesChart(all, true)})
		}
	}
	return out
}

// gridChart is median req/s (or p99 latency) per row, a bar per path.
func (m *matrixDoc) gridChart(latency bool) *chart.Bars {
	d := m.dims()
	c := &chart.Bars{Title: "Requests per second", XLabel: d.head(), YLabel: "requests per second (median of repeats)",
		LegendTitle: "path", Unit: "req/s", Format: thousands}
	if latency {
		c.Title, c.YLabel, c.Unit, c.Format = "p99 latency", "milliseconds (median of repeats)", "ms", sig3
	}
	c.XLabel = strings.ReplaceAll(c.XLabel, " | ", ", ")
	for _, row := range m.rows() {
		c.Groups = append(c.Groups, d.label(row))
	}
	for _, p := range pathNames(&m.r.Plan) {
		s := chart.BarSeries{Name: p}
		for _, row := range m.rows() {
			cell := m.at(row, p)
			v, lo, hi := cell.ReqS, cell.MinReqS, cell.MaxReqS
			if latency {
				v, lo, hi = cell.P99Us/1000, math.NaN(), math.NaN()
			}
			if cell.Samples == 0 {
				v, lo, hi = math.NaN(), math.NaN(), math.NaN()
			}
			s.Values, s.Lo, s.Hi = append(s.Values, v), append(s.Lo, lo), append(s.Hi, hi)
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// seriesChart is req/s (or the hit rate, in percent) over time, a line
// per cell, whiskers for the repeats' min–max of req/s.
func seriesChart(all []cellSeries, hits bool) *chart.Line {
	c := &chart.Line{Title: "Requests per second over time", XLabel: "seconds since the sample's start",
		YLabel: "requests per second (median of repeats)", LegendTitle: "path", Unit: "req/s", Numeric: true, XUnit: "s"}
	if hits {
		c.Title, c.YLabel, c.Unit = "Hit rate over time", "hit rate, % (median of repeats)", "%"
	}
	for _, cs := range all {
		if hits && !cs.cached {
			continue
		}
		s := chart.Series{Name: cs.label}
		for _, pt := range cs.points {
			p := chart.Point{X: pt.endS, Y: pt.reqS, Lo: pt.loS, Hi: pt.hiS, Valid: true}
			if hits {
				p = chart.Point{X: pt.endS, Y: pt.hit * 100, Valid: !math.IsNaN(pt.hit)}
			}
			s.Points = append(s.Points, p)
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// throughputChart is req/s against connections for keys per request.
func (m *matrixDoc) throughputChart(k int) *chart.Line {
	p := &m.r.Plan
	c := &chart.Line{
		Title: "Requests per second, " + keysTitle(k), XLabel: "connections", YLabel: "requests per second (median of repeats)",
		LegendTitle: "path", Unit: "req/s",
	}
	for _, n := range p.Connections {
		c.Categories = append(c.Categories, fmt.Sprint(n))
	}
	for _, pp := range p.Paths {
		s := chart.Series{Name: pp.Name}
		for _, n := range p.Connections {
			cell := m.cell(pp.Name, k, n)
			s.Points = append(s.Points, chart.Point{Y: cell.ReqS, Lo: cell.MinReqS, Hi: cell.MaxReqS, Valid: cell.Samples > 0})
		}
		c.Series = append(c.Series, s)
	}
	return c
}

// latencyChart is p50 and p99 per path at the highest connection count.
func (m *matrixDoc) latencyChart(k int) *chart.Bars {
	c := &chart.Bars{
		Title:  fmt.Sprintf("Latency at %d connections, %s", m.top, keysTitle(k)),
		XLabel: "path", YLabel: "milliseconds (median of repeats)", LegendTitle: "percentile", Unit: "ms",
		Format: sig3,
	}
	p50 := chart.BarSeries{Name: "p50"}
	p99 := chart.BarSeries{Name: "p99"}
	for _, pp := range m.r.Plan.Paths {
		c.Groups = append(c.Groups, pp.Name)
		cell := m.cell(pp.Name, k, m.top)
		a, b := cell.P50Us/1000, cell.P99Us/1000
		if cell.Samples == 0 {
			a, b = math.NaN(), math.NaN()
		}
		p50.Values, p99.Values = append(p50.Values, a), append(p99.Values, b)
	}
	c.Series = []chart.BarSeries{p50, p99}
	return c
}
