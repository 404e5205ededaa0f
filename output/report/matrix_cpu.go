package report

import (
	"fmt"
	"slices"

	"github.com/gbench/gbench/output/chart"
	"github.com/gbench/gbench/result/schema"
)

// A sample records each server's CPU time every 500 ms (Server.CPUSeries).
// The report shows it in cores, CPU seconds per second over each interval
// between two reads: a table of each cell's median and peak, and a chart
// per grid row with a line per path and server.

// ServerCPUChart is the file name of the chart of the servers' CPU over
// time for the grid row of index row (from 0, in the report's row order,
// which is the plan's).
func ServerCPUChart(row int) string { return fmt.Sprintf("server-cpu-%d.svg", row+1) }

// cpuLine is one server's CPU over time in one cell: the medians over the
// repeats that have a series, interval by interval.
type cpuLine struct {
	path, server string
	// median and peak are the medians over the repeats of each sample's
	// median and busiest interval, in cores.
	median, peak float64
	n            int // samples with a series
	points       []chart.Point
}

// cpuRow is the CPU lines of one grid row.
type cpuRow struct {
	index int // in m.rows()
	row   gridRow
	lines []cpuLine
}

// cpuRows returns the grid rows whose samples have a CPU series, with
// their lines in path order, each path's servers in the order its
// samples name them (the cost server first).
func (m *matrixDoc) cpuRows() []cpuRow {
	byCell := m.r.SamplesByCell()
	var out []cpuRow
	for i, row := range m.rows() {
		cr := cpuRow{index: i, row: row}
		for _, p := range pathNames(&m.r.Plan) {
			id := schema.CellID{Path: p, Mix: row.mix, Keys: row.keys, Connections: row.conns, Rate: row.rate}
			for _, name := range serverNames(byCell[id]) {
				if l, ok := cpuLineOf(byCell[id], name); ok {
					l.path = p
					cr.lines = append(cr.lines, l)
				}
			}
		}
		if len(cr.lines) > 0 {
			out = append(out, cr)
		}
	}
	return out
}

// serverNames lists the servers the samples name, in order.
func serverNames(samples []*schema.Sample) []string {
	var out []string
	for _, s := range samples {
		for _, sv := range servers(s) {
			if !slices.Contains(out, sv.Name) {
				out = append(out, sv.Name)
			}
		}
	}
	return out
}

// servers are the servers a sample measured, its cost server first.
func servers(s *schema.Sample) []*schema.Server {
	var out []*schema.Server
	if s.Server != nil {
		out = append(out, s.Server)
	}
	for i := range s.OtherServers {
		out = append(out, &s.OtherServers[i])
	}
	return out
}

// cpuLineOf sums up the CPU series of server name over the samples; ok is
// false when none has one with an interval.
func cpuLineOf(samples []*schema.Sample, name string) (cpuLine, bool) {
	var series []*schema.CPUSeries
	l := cpuLine{server: name}
	var medians, peaks []float64
	for _, s := range samples {
		for _, sv := range servers(s) {
			if sv.Name != name || sv.CPUSeries == nil {
				continue
			}
			if cores := intervalCores(sv.CPUSeries); len(cores) > 0 {
				series = append(series, sv.CPUSeries)
				medians, peaks = append(medians, schema.Median(cores)), append(peaks, slices.Max(cores))
			}
		}
	}
	if len(series) == 0 {
		return l, false
	}
	l.median, l.peak, l.n = schema.Median(medians), schema.Median(peaks), len(series)
	n := 0
	for _, c := range series {
		n = max(n, len(c.Reads))
	}
	for i := 1; i < n; i++ {
		var at, cores []float64
		for _, c := range series {
			if i >= len(c.Reads) {
				continue
			}
			if x, ok := c.Cores(i); ok {
				at, cores = append(at, c.Reads[i].AtS), append(cores, x)
			}
		}
		if len(cores) == 0 {
			continue
		}
		pt := chart.Point{X: schema.Median(at), Y: schema.Median(cores), Valid: true} // no whisker: Hi is not above Lo
		if len(cores) > 1 {
			pt.Lo, pt.Hi = slices.Min(cores), slices.Max(cores)
		}
		l.points = append(l.points, pt)
	}
	return l, true
}

// intervalCores is the cores of each interval of c that has a figure.
func intervalCores(c *schema.CPUSeries) []float64 {
	var out []float64
	for i := 1; i < len(c.Reads); i++ {
		if x, ok := c.Cores(i); ok {
			out = append(out, x)
		}
	}
	return out
}

// serverCPU writes the "Server CPU over time" section when the samples
// have CPU series (results of earlier versions do not).
func (m *matrixDoc) serverCPU() {
	rows := m.cpuRows()
	if len(rows) == 0 {
		return
	}
	d := m.dims()
	m.printf("## Server CPU over time\n\n")
	m.printf("Each server's CPU time, read every %s s during each sample and at both ends, from the same source as its CPU figure (cgroup, schedstat or INFO cpu), in cores: CPU seconds per second over each interval between two reads. ", trim(cpuInterval(m.r)))
	m.printf("*median* is the median over the repeats of each sample's median interval, *peak* the median over the repeats of each sample's busiest interval; n counts the samples with a series. The charts draw each interval at its end, the median over the repeats, whiskers for their min–max. ")
	m.printf("A cell without a series is left out, with the reasons below the table.\n\n")
	m.tableHead(d.head()+" | path | server", []string{"median cores", "peak cores", "n"}, "---:")
	for _, cr := range rows {
		for _, l := range cr.lines {
			m.tableRow(append(d.cells(cr.row), l.path, l.server, sig3(l.median), sig3(l.peak), fmt.Sprint(l.n)))
		}
	}
	m.printf("\n")
	for _, cr := range rows {
		m.printf("![%s](%s)\n", cpuChartTitle(d, cr, len(m.rows())), ServerCPUChart(cr.index))
	}
	m.printf("\n")
	notes := map[string]bool{}
	for i := range m.r.Samples {
		for _, sv := range servers(&m.r.Samples[i]) {
			if sv.CPUSeriesNote != "" {
				notes[sv.CPUSeriesNote] = true
			}
			if sv.CPUSeries != nil && sv.CPUSeries.Note != "" {
				notes[sv.CPUSeries.Note] = true
			}
		}
	}
	for _, n := range sortedNotes(notes) {
		m.printf("- not read: %s\n", n)
	}
	if len(notes) > 0 {
		m.printf("\n")
	}
}

// cpuInterval is the period of the samples' CPU series (the first found).
func cpuInterval(r *schema.Result) float64 {
	for i := range r.Samples {
		for _, sv := range servers(&r.Samples[i]) {
			if sv.CPUSeries != nil {
				return sv.CPUSeries.IntervalS
			}
		}
	}
	return 0
}

func cpuChartTitle(d dims, cr cpuRow, rows int) string {
	t := "Server CPU over time"
	if rows > 1 {
		t += ", " + d.label(cr.row)
	}
	return t
}

// cpuChart is the servers' cores over time in one grid row, a line per
// path and server.
func cpuChart(d dims, cr cpuRow, rows int) *chart.Line {
	c := &chart.Line{Title: cpuChartTitle(d, cr, rows), XLabel: "seconds since the sample's start",
		YLabel: "cores (median of repeats)", LegendTitle: "path, server", Unit: "cores", Format: sig3, Numeric: true, XUnit: "s"}
	for _, l := range cr.lines {
		c.Series = append(c.Series, chart.Series{Name: l.path + ", " + l.server, Points: l.points})
	}
	return c
}
