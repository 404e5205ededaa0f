package chart

import (
	"io"
	"math"
)

// Line is a line chart over categories: one line per series, a marker per
// point and, where a point has a range, a whisker from Lo to Hi.
type Line struct {
	Title          string
	XLabel, YLabel string
	// LegendTitle heads the legend; optional.
	LegendTitle string
	Categories  []string
	Series      []Series
	// Format writes values (labels, hover titles); default SI. Tick
	// labels are always SI.
	Format func(float64) string
	// Unit follows values in hover titles, e.g. "req/s".
	Unit string
	// Numeric places points at their X on a linear axis from zero,
	// instead of one category each; Categories are then unused and XUnit
	// follows x values in hover titles.
	Numeric bool
	XUnit   string
	// Marks are vertical reference lines (the knee, an answer), Rules
	// horizontal ones (an objective, a working point).
	Marks []Mark
	Rules []Rule

	xa yAxis // the x axis under Numeric, set by WriteSVG
}

// Series is one line: a point per category, in order (with Numeric, in
// increasing X).
type Series struct {
	Name   string
	Points []Point
	// Dots draws the markers without the line joining them.
	Dots bool
}

// Point is a value with an optional range. A point with Valid unset is
// not drawn and breaks the line.
type Point struct {
	Y, Lo, Hi float64
	Valid     bool
	// X is the point's position under Numeric.
	X float64
}

// Mark is a dashed vertical line with a label at its top: at category
// index At, or at x value At under Numeric.
type Mark struct {
	At    float64
	Label string
}

// Rule is a dashed horizontal line at Y with a label at its right end.
type Rule struct {
	Y     float64
	Label string
}

// WriteSVG writes the chart as a standalone SVG document.
func (c *Line) WriteSVG(w io.Writer) error {
	format := c.Format
	if format == nil {
		format = SI
	}
	ax := newYAxis(c.maxValue())
	var d doc
	d.begin(c.Title)
	ax.draw(&d, c.YLabel)
	if c.Numeric {
		c.xa = newYAxis(c.maxX())
		for _, v := range c.xa.ticks() {
			d.text(c.xAt(v), plotBottom+20, "middle", `fill="#444444"`, SI(v))
		}
	}
	for i, cat := range c.Categories {
		if !c.Numeric {
			d.text(c.x(i), plotBottom+20, "middle", `fill="#444444"`, cat)
		}
	}
	xLabel(&d, c.XLabel)
	c.drawReferences(&d, ax, format)
	var names []string
	var dots []bool
	for si, s := range c.Series {
		names, dots = append(names, s.Name), append(dots, s.Dots)
		c.drawSeries(&d, ax, si, s, format)
	}
	legend(&d, names, c.LegendTitle, false, dots)
	return d.end(w)
}

// x is the centre of category i.
func (c *Line) x(i int) float64 {
	step := float64(plotRight-marginLeft) / float64(max(len(c.Categories), 1))
	return marginLeft + step*(float64(i)+0.5)
}

// xAt is the plot coordinate of x value v under Numeric.
func (c *Line) xAt(v float64) float64 {
	return marginLeft + 10 + float64(plotRight-marginLeft-20)*v/c.xa.top
}

// px is the x coordinate of point i of a series.
func (c *Line) px(i int, p Point) float64 {
	if c.Numeric {
		return c.xAt(p.X)
	}
	return c.x(i)
}

// maxValue is the largest value, range end or rule.
func (c *Line) maxValue() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.Valid {
				m = math.Max(m, math.Max(p.Y, p.Hi))
			}
		}
	}
	for _, r := range c.Rules {
		m = math.Max(m, r.Y)
	}
	return m
}

// maxX is the largest x value of a Numeric chart, marks included.
func (c *Line) maxX() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.Valid {
				m = math.Max(m, p.X)
			}
		}
	}
	for _, k := range c.Marks {
		m = math.Max(m, k.At)
	}
	return m
}

// drawReferences draws the marks and rules, under the series.
func (c *Line) drawReferences(d *doc, ax yAxis, format func(float64) string) {
	for _, r := range c.Rules {
		y := ax.y(r.Y)
		d.line(marginLeft, y, plotRight, y, "#555555", 1.5, `stroke-dasharray="6 4"`)
		d.text(plotRight-4, y-6, "end", `font-size="11" fill="#333333"`, r.Label)
	}
	for _, k := range c.Marks {
		x := c.x(int(k.At))
		if c.Numeric {
			x = c.xAt(k.At)
		}
		d.line(x, marginTop, x, plotBottom, "#555555", 1.5, `stroke-dasharray="6 4"`)
		d.text(x+4, marginTop+12, "start", `font-size="11" fill="#333333"`, k.Label)
	}
}

// drawSeries draws one series: its line segments, whiskers and markers.
func (c *Line) drawSeries(d *doc, ax yAxis, si int, s Series, format func(float64) string) {
	col := color(si)
	var run []float64
	flush := func() {
		if len(run) >= 4 && !s.Dots {
			d.polyline(run, col)
		}
		run = run[:0]
	}
	for i, p := range s.Points {
		if !p.Valid || (!c.Numeric && i >= len(c.Categories)) {
			flush()
			continue
		}
		run = append(run, c.px(i, p), ax.y(p.Y))
	}
	flush()
	for i, p := range s.Points {
		if !p.Valid || (!c.Numeric && i >= len(c.Categories)) {
			continue
		}
		x := c.px(i, p)
		at := ""
		if c.Numeric {
			at = format(p.X) + " " + c.XUnit
		} else {
			at = c.Categories[i]
		}
		title := s.Name + ", " + at + ": " + format(p.Y) + " " + c.Unit
		if p.Hi > p.Lo {
			d.line(x, ax.y(p.Lo), x, ax.y(p.Hi), col, 1.5, "")
			d.line(x-5, ax.y(p.Lo), x+5, ax.y(p.Lo), col, 1.5, "")
			d.line(x-5, ax.y(p.Hi), x+5, ax.y(p.Hi), col, 1.5, "")
			title += " (range " + format(p.Lo) + " to " + format(p.Hi) + ")"
		}
		d.circle(x, ax.y(p.Y), 4.5, col, title)
	}
}
