package chart

import (
	"math"
	"strconv"
	"strings"
)

// yAxis maps values from 0 to top onto the plot, top at the plot's top.
type yAxis struct {
	top, step float64
}

// newYAxis picks a round step giving about five ticks and the first tick
// at or above max. An empty or all-zero chart gets the axis 0..1, and so
// does one whose values are too small for a step (below about 1e-307);
// one too close to the largest float for a round top gets the axis
// 0..max.
func newYAxis(max float64) yAxis {
	if !(max > 0) || math.IsInf(max, 0) {
		return yAxis{top: 1, step: 0.2}
	}
	step := niceStep(max / 5)
	top := math.Ceil(max/step-1e-9) * step
	switch {
	case !(step > 0) || math.IsInf(step, 0) || max/step > 100:
		return yAxis{top: 1, step: 0.2}
	case math.IsInf(top, 0):
		return yAxis{top: max, step: max / 5}
	}
	return yAxis{top: top, step: step}
}

// niceStep rounds raw up to 1, 2, 2.5 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// y returns the plot coordinate of v.
func (a yAxis) y(v float64) float64 {
	return plotBottom - (plotBottom-marginTop)*v/a.top
}

// ticks returns the tick values from 0 to top (at most a hundred).
func (a yAxis) ticks() []float64 {
	var out []float64
	for i := 0; i <= 100; i++ {
		v := float64(i) * a.step
		if v/a.top > 1+1e-9 { // not v > top*(1+1e-9), which overflows near the largest float
			return out
		}
		out = append(out, v)
	}
	return out
}

// draw draws the grid lines, tick labels (SI) and the axis label.
func (a yAxis) draw(d *doc, label string) {
	for _, v := range a.ticks() {
		y := a.y(v)
		d.line(marginLeft, y, plotRight, y, "#e0e0e0", 1, "")
		d.text(marginLeft-8, y+4, "end", `fill="#444444"`, SI(v))
	}
	d.line(marginLeft, marginTop, marginLeft, plotBottom, "#888888", 1, "")
	d.line(marginLeft, plotBottom, plotRight, plotBottom, "#888888", 1, "")
	cy := float64(marginTop+plotBottom) / 2
	d.raw(`<text x="18" y="` + num(cy) + `" text-anchor="middle" transform="rotate(-90 18 ` + num(cy) + `)" fill="#222222">` + esc(label) + "</text>\n")
}

// xLabel writes the x axis label under the category labels.
func xLabel(d *doc, label string) {
	d.text((marginLeft+plotRight)/2, plotBottom+46, "middle", `fill="#222222"`, label)
}

// legend lists the series names with their colours right of the plot: a
// line sample for lines, a dot for series drawn as dots (dots[i]), a
// square for bars.
func legend(d *doc, names []string, title string, bars bool, dots []bool) {
	y := float64(marginTop + 4)
	if title != "" {
		d.text(legendX, y, "start", `font-weight="bold" fill="#222222"`, title)
		y += 22
	}
	for i, n := range names {
		switch {
		case bars:
			d.raw(`<rect x="` + num(legendX+5) + `" y="` + num(y-11) + `" width="12" height="12" fill="` + color(i) + `"/>` + "\n")
		case i < len(dots) && dots[i]:
			d.raw(`<circle cx="` + num(legendX+11) + `" cy="` + num(y-4) + `" r="4.5" fill="` + color(i) + `"/>` + "\n")
		default:
			d.line(legendX, y-4, legendX+22, y-4, color(i), 3, "")
		}
		d.text(legendX+30, y, "start", `fill="#222222"`, n)
		y += 22
	}
}

// SI formats v with k (thousands) or M (millions) and at most three
// significant digits, trailing zeros dropped: 0, 2.5, 250k, 1.25M.
func SI(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e3:
		return trim(v/1e3) + "k"
	}
	return trim(v)
}

// trim formats v with three significant digits at most, without trailing
// zeros.
func trim(v float64) string {
	s := strconv.FormatFloat(v, 'f', decimals(v), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// decimals is the number of decimals that keeps three significant digits.
func decimals(v float64) int {
	switch a := math.Abs(v); {
	case a == 0 || a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 1:
		return 2
	}
	return 3
}
