package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Layout of every chart, in SVG user units (pixels).
const (
	width      = 760
	height     = 420
	marginTop  = 56
	marginLeft = 78
	plotRight  = 590 // the legend sits right of the plot
	plotBottom = 360
	legendX    = 608
	fontFamily = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
)

// palette colours the series, in order; it repeats past its end.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

// color returns series i's colour.
func color(i int) string { return palette[i%len(palette)] }

// doc accumulates an SVG document; WriteTo writes it in one call, so that
// the only write error is that one.
type doc struct{ b bytes.Buffer }

// begin opens the document and draws the title.
func (d *doc) begin(title string) {
	fmt.Fprintf(&d.b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="%s" font-size="12">`+"\n",
		width, height, width, height, fontFamily)
	d.raw(`<title>` + esc(title) + "</title>\n")
	d.raw(fmt.Sprintf(`<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height))
	d.text(width/2, 28, "middle", `font-size="16" font-weight="bold"`, title)
}

// end closes the document and writes it to w.
func (d *doc) end(w io.Writer) error {
	d.raw("</svg>\n")
	_, err := w.Write(d.b.Bytes())
	return err
}

func (d *doc) raw(s string) { d.b.WriteString(s) }

// text draws s at (x, y) with the given anchor and extra attributes.
func (d *doc) text(x, y float64, anchor, attrs, s string) {
	if attrs != "" {
		attrs = " " + attrs
	}
	fmt.Fprintf(&d.b, `<text x="%s" y="%s" text-anchor="%s"%s>%s</text>`+"\n", num(x), num(y), anchor, attrs, esc(s))
}

// line draws a segment.
func (d *doc) line(x1, y1, x2, y2 float64, stroke string, w float64, extra string) {
	if extra != "" {
		extra = " " + extra
	}
	fmt.Fprintf(&d.b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>`+"\n",
		num(x1), num(y1), num(x2), num(y2), stroke, num(w), extra)
}

// rect draws a filled rectangle with a hover title.
func (d *doc) rect(x, y, w, h float64, fill, title string) {
	fmt.Fprintf(&d.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
		num(x), num(y), num(w), num(h), fill, esc(title))
}

// circle draws a point with a hover title.
func (d *doc) circle(x, y, r float64, fill, title string) {
	fmt.Fprintf(&d.b, `<circle cx="%s" cy="%s" r="%s" fill="%s"><title>%s</title></circle>`+"\n",
		num(x), num(y), num(r), fill, esc(title))
}

// polyline draws a line through points given as x, y pairs.
func (d *doc) polyline(xy []float64, stroke string) {
	var pts []string
	for i := 0; i+1 < len(xy); i += 2 {
		pts = append(pts, num(xy[i])+","+num(xy[i+1]))
	}
	fmt.Fprintf(&d.b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5" stroke-linejoin="round"/>`+"\n",
		strings.Join(pts, " "), stroke)
}

// num formats a coordinate with one decimal, without a useless ".0".
func num(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
