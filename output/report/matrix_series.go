package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/gbench/gbench/result/schema"
)

// A plan with interval_s records a series in every sample (the cold
// fill's): requests per interval and, for a path with a cached command,
// the cache's entries at each interval's end. The report sums up each
// cell's series over its repeats, interval by interval.

// cellSeries is the series of one cell, interval by interval: the medians
// over the repeats that have the interval.
type cellSeries struct {
	label  string // the path, and the row when the grid has several
	points []seriesPoint
	// warm[i] is the median time until warmShares[i] of the items were
	// cached; NaN when a repeat never got there.
	warm []float64
	// cached is set when the samples counted the cache's entries.
	cached bool
}

// seriesPoint is one interval of a cell's series.
type seriesPoint struct {
	endS           float64
	reqS, loS, hiS float64
	hit            float64 // NaN when unknown
	share          float64 // of the items cached at the end; NaN when unknown
	n              int     // repeats that have the interval
	p99Us          float64 // NaN when no repeat has it
}

// warmShares are the shares of the items cached that the summary times.
var warmShares = []float64{0.5, 0.9, 0.99}

// allSeries returns the series of every cell that has one, in grid order.
func (m *matrixDoc) allSeries() []cellSeries {
	byCell := m.r.SamplesByCell()
	d := m.dims()
	var out []cellSeries
	for _, pp := range m.r.Plan.Paths {
		for _, row := range m.rows() {
			id := schema.CellID{Path: pp.Name, Mix: row.mix, Keys: row.keys, Connections: row.conns, Rate: row.rate}
			samples := byCell[id]
			if len(samples) == 0 || len(samples[0].Intervals) == 0 {
				continue
			}
			cs := seriesOf(samples, m.r.Plan.Items)
			cs.label = pp.Name
			if len(m.rows()) > 1 {
				cs.label += ", " + d.label(row)
			}
			out = append(out, cs)
		}
	}
	return out
}

// seriesOf sums up the samples' series.
func seriesOf(samples []*schema.Sample, items int) cellSeries {
	var cs cellSeries
	n := 0
	for _, s := range samples {
		n = max(n, len(s.Intervals))
	}
	for i := range n {
		var ends, reqs, hits, shares, p99 []float64
		for _, s := range samples {
			if i >= len(s.Intervals) {
				continue
			}
			in := &s.Intervals[i]
			ends, reqs = append(ends, in.EndS), append(reqs, in.ReqS)
			if in.P99Us != nil {
				p99 = append(p99, float64(*in.P99Us))
			}
			if h, ok := hitRate(s, i); ok {
				hits = append(hits, h)
			}
			if sh, ok := share(s, i, items); ok {
				shares = append(shares, sh)
			}
		}
		pt := seriesPoint{endS: schema.Median(ends), reqS: schema.Median(reqs), loS: slices.Min(reqs), hiS: slices.Max(reqs),
			hit: medianOrNaN(hits), share: medianOrNaN(shares), n: len(reqs), p99Us: medianOrNaN(p99)}
		cs.cached = cs.cached || len(shares) > 0
		cs.points = append(cs.points, pt)
	}
	for _, w := range warmShares {
		var times []float64
		for _, s := range samples {
			times = append(times, warmAt(s, w, items))
		}
		if slices.ContainsFunc(times, math.IsNaN) {
			cs.warm = append(cs.warm, math.NaN())
		} else {
			cs.warm = append(cs.warm, schema.Median(times))
		}
	}
	return cs
}

// hitRate is the hit rate of interval i of s: 1 - new cache entries /
// requests. It is unknown without the counts, with no request, or when
// the entries grew by more than the requests or shrank (a cached command
// that counts something else).
func hitRate(s *schema.Sample, i int) (float64, bool) {
	in := &s.Intervals[i]
	prev := s.CachedStart
	if i > 0 {
		prev = s.Intervals[i-1].Cached
	}
	if in.Cached == nil || prev == nil || in.Requests <= 0 {
		return 0, false
	}
	added := *in.Cached - *prev
	if added < 0 || added > in.Requests+in.Failures {
		return 0, false
	}
	return 1 - float64(added)/float64(in.Requests+in.Failures), true
}

// share is the share of the items cached at the end of interval i: the
// entries added since the sample's start over the items.
func share(s *schema.Sample, i, items int) (float64, bool) {
	in := &s.Intervals[i]
	if in.Cached == nil || s.CachedStart == nil || items <= 0 {
		return 0, false
	}
	return float64(*in.Cached-*s.CachedStart) / float64(items), true
}

// warmAt is the end of the first interval of s at which share w of the
// items was cached; NaN when none was.
func warmAt(s *schema.Sample, w float64, items int) float64 {
	for i := range s.Intervals {
		if sh, ok := share(s, i, items); ok && sh >= w {
			return s.Intervals[i].EndS
		}
	}
	return math.NaN()
}

func medianOrNaN(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return schema.Median(xs)
}

// series writes the summary and the interval tables of the series, and
// links their charts.
func (m *matrixDoc) series() {
	all := m.allSeries()
	if len(all) == 0 {
		return
	}
	m.printf("## Over time\n\n")
	m.printf("Each sample's throughput every %s s, medians over the repeats interval by interval. ", trim(m.r.Plan.IntervalS))
	m.printf("Where a path counts its cache's entries (`cached`), the hit rate of an interval is 1 − new entries / requests (two clients missing the same key at once add one entry), and *cached* is the share of the %s items in the cache at the interval's end.\n\n", thousands(float64(m.r.Plan.Items)))
	cols := []string{"first interval req/s", "last interval req/s"}
	for _, w := range warmShares {
		cols = append(cols, fmt.Sprintf("%s cached after", share3(w)))
	}
	cols = append(cols, "hit rate, last interval")
	m.tableHead("path", cols, "---:")
	for _, cs := range all {
		first, last := cs.points[0], cs.points[len(cs.points)-1]
		cells := []string{cs.label, thousands(first.reqS), thousands(last.reqS)}
		for _, t := range cs.warm {
			cells = append(cells, warmText(cs, t))
		}
		m.tableRow(append(cells, pctOrDash(last.hit)))
	}
	m.printf("\n![Requests per second over time](%s)\n", SeriesReqsChart)
	if slices.ContainsFunc(all, func(cs cellSeries) bool { return cs.cached }) {
		m.printf("![Hit rate over time](%s)\n", SeriesHitsChart)
	}
	m.printf("\n")
	m.seriesTable(all)
}

// seriesTable writes every interval: req/s, hit rate and share cached
// per cell.
func (m *matrixDoc) seriesTable(all []cellSeries) {
	var cols []string
	for _, cs := range all {
		cols = append(cols, cs.label+" req/s")
		if cs.cached {
			cols = append(cols, "hit rate", "cached")
		}
	}
	m.tableHead("end s", cols, "---:")
	n := 0
	for _, cs := range all {
		n = max(n, len(cs.points))
	}
	for i := range n {
		row := []string{""}
		for _, cs := range all {
			if i >= len(cs.points) {
				row = append(row, "—")
				if cs.cached {
					row = append(row, "—", "—")
				}
				continue
			}
			pt := cs.points[i]
			if row[0] == "" {
				row[0] = fmt.Sprintf("%.1f", pt.endS)
			}
			row = append(row, thousands(pt.reqS))
			if cs.cached {
				row = append(row, pctOrDash(pt.hit), pctOrDash(pt.share))
			}
		}
		m.tableRow(row)
	}
	m.printf("\n")
}

func warmText(cs cellSeries, t float64) string {
	switch {
	case !cs.cached:
		return "—"
	case math.IsNaN(t):
		return "not reached"
	}
	return fmt.Sprintf("%.1f s", t)
}

func share3(x float64) string { return trim(math.Round(x*1000)/10) + "%" }

func pctOrDash(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", x*100)
}
