package report

import (
	"fmt"
	"io"
	"math"

	"github.com/gbench/gbench/engine/chart"
	"github.com/gbench/gbench/engine/matrix/schema"
)

// ThroughputChart is the file name of the req/s chart for keys per
// request.
func ThroughputChart(keys int) string { return fmt.Sprintf("reqs-keys%d.svg", keys) }

// LatencyChart is the file name of the latency chart for keys per request.
func LatencyChart(keys int) string { return fmt.Sprintf("latency-keys%d.svg", keys) }

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
func MatrixCharts(r *schema.Result) []MatrixChart {
	m := newMatrixDoc(r)
	var out []MatrixChart
	for _, k := range r.Plan.Keys {
		out = append(out, MatrixChart{Name: ThroughputChart(k), svg: m.throughputChart(k)})
	}
	for _, k := range r.Plan.Keys {
		out = append(out, MatrixChart{Name: LatencyChart(k), svg: m.latencyChart(k)})
	}
	return out
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
