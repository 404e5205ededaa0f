package schema

import (
	"fmt"
	"math"
	"strings"

	"github.com/gbench/gbench/result/gate"
)

// CellGates are one cell's verdicts on its thresholds (the plan's
// threshold, the path's, and gbench matrix --threshold): each figure is
// the median over the cell's valid samples, as the cell's report shows
// it.
type CellGates struct {
	Path        string  `json:"path"`
	Mix         string  `json:"mix,omitempty"`
	Keys        int     `json:"keys,omitempty"`
	Connections int     `json:"connections"`
	Rate        float64 `json:"rate,omitempty"`
	// Breached is set when any verdict is not met.
	Breached bool           `json:"breached"`
	Verdicts []gate.Verdict `json:"verdicts"`
}

// ID is the cell's identity.
func (g *CellGates) ID() CellID { return CellID{g.Path, g.Mix, g.Keys, g.Connections, g.Rate} }

// CellPercentiles are the latency percentiles a sample keeps (Latency's
// fields), the only ones a cell's threshold can name.
var CellPercentiles = []float64{50, 90, 99, 99.9, 100}

// ParseCellThresholds reads a cell threshold list: gate's grammar
// without a script prefix (a sample keeps no per-script figures), with a
// percentile a sample keeps. Errors quote s.
func ParseCellThresholds(s string) ([]gate.Threshold, error) {
	ts, err := gate.Parse(s)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if t.Script != "" {
			return nil, fmt.Errorf("invalid threshold %q: a matrix cell keeps no per-script figures; give the term without \"%s:\"", t.String(), t.Script)
		}
		if t.Figure == gate.Stddev || t.Figure == gate.Lag {
			return nil, fmt.Errorf("invalid threshold %q: a matrix sample keeps no %s", t.String(), t.Figure)
		}
		if t.Figure == gate.Latency && !isCellPercentile(t.Percentile) {
			return nil, fmt.Errorf("invalid threshold %q: a matrix sample keeps p50, p90, p99, p99.9 and max, not p%g", t.String(), t.Percentile)
		}
	}
	return ts, nil
}

func isCellPercentile(p float64) bool {
	for _, q := range CellPercentiles {
		if p == q {
			return true
		}
	}
	return false
}

// ThresholdsOf returns the threshold lists that apply to the cells of
// path: the plan's, then the path's.
func (p *Plan) ThresholdsOf(path string) []string {
	var out []string
	if p.Threshold != "" {
		out = append(out, p.Threshold)
	}
	for _, pp := range p.Paths {
		if pp.Name == path && pp.Threshold != "" {
			out = append(out, pp.Threshold)
		}
	}
	return out
}

// CheckCells checks every cell of the plan that has thresholds against
// its valid samples, in plan order; nil when no cell has any. A cell
// without a valid sample breaches each of its thresholds, with a note.
func (r *Result) CheckCells() ([]CellGates, error) {
	byCell := r.SamplesByCell()
	var out []CellGates
	for _, id := range r.Plan.CellIDs() {
		lists := r.Plan.ThresholdsOf(id.Path)
		if len(lists) == 0 {
			continue
		}
		var ts []gate.Threshold
		for _, l := range lists {
			t, err := ParseCellThresholds(l)
			if err != nil {
				return nil, err
			}
			ts = append(ts, t...)
		}
		vs := gate.Check(ts, cellFigures(byCell[id]), nil)
		out = append(out, CellGates{Path: id.Path, Mix: id.Mix, Keys: id.Keys, Connections: id.Connections, Rate: id.Rate,
			Breached: gate.Breached(vs), Verdicts: vs})
	}
	return out, nil
}

// cellFigures are the medians of the samples' figures: requests per
// second as tps, failed requests over all as failures, the latency
// percentiles the samples keep.
func cellFigures(samples []*Sample) gate.Figures {
	c := cell(CellID{}, samples)
	var fail, failed []float64
	for _, s := range samples {
		failed = append(failed, float64(s.Failures))
		if n := s.Requests + s.Failures; n > 0 {
			fail = append(fail, float64(s.Failures)/float64(n))
		}
	}
	f := gate.Figures{TPS: c.ReqS, Failures: Median(fail), Failed: Median(failed)}
	if len(samples) == 0 {
		f.TPS, f.Failures, f.Failed = math.NaN(), math.NaN(), math.NaN()
	}
	f.Mean = func() (float64, bool) { return c.MeanUs, len(samples) > 0 }
	f.Latency = func(p float64) (float64, bool) {
		if len(samples) == 0 {
			return 0, false
		}
		switch p {
		case 50:
			return c.P50Us, true
		case 90:
			return c.P90Us, true
		case 99:
			return c.P99Us, true
		case 99.9:
			return c.P999Us, true
		}
		return c.MaxUs, true
	}
	return f
}

// BreachedCells lists the breached cells' names and breached verdicts,
// one line each: "sql-any 16 keys 64 conns: p99<=5ms (7.120 ms)".
func BreachedCells(gs []CellGates) []string {
	var out []string
	for _, g := range gs {
		if !g.Breached {
			continue
		}
		var bad []string
		for _, v := range g.Verdicts {
			if !v.Met {
				bad = append(bad, v.Threshold+" ("+v.Display+")")
			}
		}
		out = append(out, g.Name()+": "+strings.Join(bad, ", "))
	}
	return out
}

// Name names the cell in words.
func (g *CellGates) Name() string {
	s := g.Path
	if g.Mix != "" {
		s += " " + g.Mix
	}
	if g.Keys > 0 {
		s += fmt.Sprintf(" %d keys", g.Keys)
	}
	s += fmt.Sprintf(" %d connections", g.Connections)
	if g.Rate > 0 {
		s += fmt.Sprintf(" at %g req/s", g.Rate)
	}
	return s
}
