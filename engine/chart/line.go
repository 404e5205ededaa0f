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
}

// Series is one line: a point per category, in order.
type Series struct {
	Name   string
	Points []Point
}

// Point is a value with an optional range. A point with Valid unset is
// not drawn and breaks the line.
type Point struct {
	Y, Lo, Hi float64
	Valid     bool
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
	for i, cat := range c.Categories {
		d.text(c.x(i), plotBottom+20, "middle", `fill="#444444"`, cat)
	}
	xLabel(&d, c.XLabel)
	var names []string
	for si, s := range c.Series {
		names = append(names, s.Name)
		c.drawSeries(&d, ax, si, s, format)
	}
	legend(&d, names, c.LegendTitle, false)
	return d.end(w)
}

// x is the centre of category i.
func (c *Line) x(i int) float64 {
	step := float64(plotRight-marginLeft) / float64(max(len(c.Categories), 1))
	return marginLeft + step*(float64(i)+0.5)
}

// maxValue is the largest value or range end.
func (c *Line) maxValue() float64 {
	m := 0.0
	for _, s := range c.Series {
		for _, p := range s.Points {
			if p.Valid {
				m = math.Max(m, math.Max(p.Y, p.Hi))
			}
		}
	}
	return m
}

// drawSeries draws one series: its line segments, whiskers and markers.
func (c *Line) drawSeries(d *doc, ax yAxis, si int, s Series, format func(float64) string) {
	col := color(si)
	var run []float64
	flush := func() {
		if len(run) >= 4 {
			d.polyline(run, col)
		}
		run = run[:0]
	}
	for i, p := range s.Points {
		if !p.Valid || i >= len(c.Categories) {
			flush()
			continue
		}
		run = append(run, c.x(i), ax.y(p.Y))
	}
	flush()
	for i, p := range s.Points {
		if !p.Valid || i >= len(c.Categories) {
			continue
		}
		x := c.x(i)
		title := s.Name + ", " + c.Categories[i] + ": " + format(p.Y) + " " + c.Unit
		if p.Hi > p.Lo {
			d.line(x, ax.y(p.Lo), x, ax.y(p.Hi), col, 1.5, "")
			d.line(x-5, ax.y(p.Lo), x+5, ax.y(p.Lo), col, 1.5, "")
			d.line(x-5, ax.y(p.Hi), x+5, ax.y(p.Hi), col, 1.5, "")
			title += " (range " + format(p.Lo) + " to " + format(p.Hi) + ")"
		}
		d.circle(x, ax.y(p.Y), 4.5, col, title)
	}
}
