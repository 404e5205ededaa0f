package chart

import (
	"io"
	"math"
)

// Bars is a grouped bar chart: for each group, one bar per series, the
// value written above it.
type Bars struct {
	Title       string
	XLabel      string
	YLabel      string
	LegendTitle string
	Groups      []string
	Series      []BarSeries
	// Format writes values (labels, hover titles); default SI. Tick
	// labels are always SI.
	Format func(float64) string
	// Unit follows values in hover titles, e.g. "ms".
	Unit string
}

// BarSeries is one bar in each group, in group order. A NaN value draws
// no bar. Lo and Hi, when set, give each bar a range drawn as a whisker
// (min–max of repeats).
type BarSeries struct {
	Name   string
	Values []float64
	Lo, Hi []float64
}

// rangeAt returns bar i's range, if it has one.
func (s *BarSeries) rangeAt(i int) (lo, hi float64, ok bool) {
	if i >= len(s.Lo) || i >= len(s.Hi) || math.IsNaN(s.Lo[i]) || math.IsNaN(s.Hi[i]) || s.Hi[i] <= s.Lo[i] {
		return 0, 0, false
	}
	return s.Lo[i], s.Hi[i], true
}

// WriteSVG writes the chart as a standalone SVG document.
func (c *Bars) WriteSVG(w io.Writer) error {
	format := c.Format
	if format == nil {
		format = SI
	}
	m := 0.0
	for _, s := range c.Series {
		for i, v := range s.Values {
			if !math.IsNaN(v) {
				m = math.Max(m, v)
			}
			if _, hi, ok := s.rangeAt(i); ok {
				m = math.Max(m, hi)
			}
		}
	}
	ax := newYAxis(m)
	var d doc
	d.begin(c.Title)
	ax.draw(&d, c.YLabel)
	groupW := float64(plotRight-marginLeft) / float64(max(len(c.Groups), 1))
	barW := groupW * 0.7 / float64(max(len(c.Series), 1))
	var names []string
	for _, s := range c.Series {
		names = append(names, s.Name)
	}
	for gi, g := range c.Groups {
		x0 := marginLeft + groupW*float64(gi) + groupW*0.15
		d.text(marginLeft+groupW*(float64(gi)+0.5), plotBottom+20, "middle", `fill="#444444"`, g)
		for si, s := range c.Series {
			if gi >= len(s.Values) || math.IsNaN(s.Values[gi]) {
				continue
			}
			v := s.Values[gi]
			x, y := x0+barW*float64(si), ax.y(v)
			title := g + ", " + s.Name + ": " + format(v) + " " + c.Unit
			lo, hi, ranged := s.rangeAt(gi)
			if ranged {
				title += " (range " + format(lo) + " to " + format(hi) + ")"
			}
			d.rect(x+1, y, barW-2, plotBottom-y, color(si), title)
			labelY := y - 5
			if ranged {
				cx := x + barW/2
				d.line(cx, ax.y(lo), cx, ax.y(hi), "#222222", 1.5, "")
				d.line(cx-5, ax.y(lo), cx+5, ax.y(lo), "#222222", 1.5, "")
				d.line(cx-5, ax.y(hi), cx+5, ax.y(hi), "#222222", 1.5, "")
				labelY = math.Min(labelY, ax.y(hi)-5)
			}
			d.text(x+barW/2, labelY, "middle", `font-size="11" fill="#222222"`, format(v))
		}
	}
	xLabel(&d, c.XLabel)
	legend(&d, names, c.LegendTitle, true, nil)
	return d.end(w)
}
