package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"
	"unicode/utf8"
)

// sdoc is a report in a form that renders as text, markdown or HTML:
// headings, paragraphs, warnings, tables and charts in order.
type sdoc struct {
	title  string
	blocks []sblock
	charts []SeriesChart
}

// sblock is one block of a report.
type sblock struct {
	kind  blockKind
	text  string
	table *stable
	chart int // index into charts
}

type blockKind int

const (
	blockHeading blockKind = iota
	blockPara
	blockWarn
	blockTable
	blockChart
	blockCode
)

// stable is a table: a header and rows of cells; right-aligned columns
// hold figures.
type stable struct {
	head  []string
	right []bool
	rows  [][]string
}

func (d *sdoc) heading(s string) { d.blocks = append(d.blocks, sblock{kind: blockHeading, text: s}) }
func (d *sdoc) para(f string, a ...any) {
	d.blocks = append(d.blocks, sblock{kind: blockPara, text: fmt.Sprintf(f, a...)})
}
func (d *sdoc) warn(f string, a ...any) {
	d.blocks = append(d.blocks, sblock{kind: blockWarn, text: fmt.Sprintf(f, a...)})
}
func (d *sdoc) code(s string)      { d.blocks = append(d.blocks, sblock{kind: blockCode, text: s}) }
func (d *sdoc) addTable(t *stable) { d.blocks = append(d.blocks, sblock{kind: blockTable, table: t}) }
func (d *sdoc) addChart(c SeriesChart) {
	d.blocks = append(d.blocks, sblock{kind: blockChart, chart: len(d.charts)})
	d.charts = append(d.charts, c)
}
func newTable(head ...string) *stable { return &stable{head: head, right: make([]bool, len(head))} }
func (t *stable) add(cells ...string) { t.rows = append(t.rows, cells) }
func (t *stable) alignRight(cols ...int) *stable {
	for _, c := range cols {
		t.right[c] = true
	}
	return t
}

// text writes d as plain text for a terminal: charts are left out.
func (d *sdoc) text(w io.Writer) error {
	var b bytes.Buffer
	for _, bl := range d.blocks {
		switch bl.kind {
		case blockHeading:
			fmt.Fprintf(&b, "\n%s\n", bl.text)
		case blockPara:
			fmt.Fprintf(&b, "%s\n", bl.text)
		case blockWarn:
			fmt.Fprintf(&b, "WARNING: %s\n", bl.text)
		case blockCode:
			fmt.Fprintf(&b, "  %s\n", bl.text)
		case blockTable:
			bl.table.writeText(&b)
		}
	}
	_, err := w.Write(bytes.TrimLeft(b.Bytes(), "\n"))
	return err
}

// writeText aligns the table's columns with spaces.
func (t *stable) writeText(b *bytes.Buffer) {
	width := make([]int, len(t.head))
	for i, h := range t.head {
		width[i] = utf8.RuneCountInString(h)
	}
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var parts []string
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if t.right[i] {
				parts = append(parts, pad+c)
			} else {
				parts = append(parts, c+pad)
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	line(t.head)
	for _, r := range t.rows {
		line(r)
	}
}

// markdown writes d as GitHub markdown, charts as images named by their
// file names.
func (d *sdoc) markdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", d.title)
	for _, bl := range d.blocks {
		switch bl.kind {
		case blockHeading:
			fmt.Fprintf(&b, "\n## %s\n\n", bl.text)
		case blockPara:
			fmt.Fprintf(&b, "%s\n\n", bl.text)
		case blockWarn:
			fmt.Fprintf(&b, "> **Warning:** %s\n\n", bl.text)
		case blockCode:
			fmt.Fprintf(&b, "```\n%s\n```\n\n", bl.text)
		case blockTable:
			t := bl.table
			fmt.Fprintf(&b, "| %s |\n|", strings.Join(t.head, " | "))
			for i := range t.head {
				if t.right[i] {
					b.WriteString("---:|")
				} else {
					b.WriteString("---|")
				}
			}
			b.WriteString("\n")
			for _, r := range t.rows {
				fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
			}
			b.WriteString("\n")
		case blockChart:
			c := d.charts[bl.chart]
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Title, c.Name)
		}
	}
	_, err := w.Write(bytes.TrimRight(b.Bytes(), "\n"))
	if err == nil {
		_, err = io.WriteString(w, "\n")
	}
	return err
}

// htmlStyle is the page's only styling; the page loads nothing.
const htmlStyle = `body{font-family:system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#222}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f3f3f3}.warn{background:#fff4e5;border-left:4px solid #e08a00;padding:.4em .8em}
figure{margin:1em 0}figure svg{max-width:100%;height:auto}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}`

// html writes d as one self-contained HTML page: the charts inline as
// SVG, no script, no external resource.
func (d *sdoc) html(w io.Writer) error {
	var b bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n<style>\n%s\n</style>\n</head>\n<body>\n<h1>%s</h1>\n",
		esc(d.title), htmlStyle, esc(d.title))
	for _, bl := range d.blocks {
		switch bl.kind {
		case blockHeading:
			fmt.Fprintf(&b, "<h2>%s</h2>\n", esc(bl.text))
		case blockPara:
			fmt.Fprintf(&b, "<p>%s</p>\n", esc(bl.text))
		case blockWarn:
			fmt.Fprintf(&b, "<p class=\"warn\"><strong>Warning:</strong> %s</p>\n", esc(bl.text))
		case blockCode:
			fmt.Fprintf(&b, "<pre>%s</pre>\n", esc(bl.text))
		case blockTable:
			bl.table.writeHTML(&b)
		case blockChart:
			c := d.charts[bl.chart]
			fmt.Fprintf(&b, "<figure id=\"%s\">\n", esc(strings.TrimSuffix(c.Name, ".svg")))
			var svg bytes.Buffer
			if err := c.WriteSVG(&svg); err != nil {
				return err
			}
			b.Write(svg.Bytes())
			fmt.Fprintf(&b, "<figcaption>%s</figcaption>\n</figure>\n", esc(c.Title))
		}
	}
	b.WriteString("</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeHTML writes the table as an HTML table.
func (t *stable) writeHTML(b *bytes.Buffer) {
	cell := func(tag string, i int, s string) {
		class := ""
		if t.right[i] {
			class = ` class="n"`
		}
		fmt.Fprintf(b, "<%s%s>%s</%s>", tag, class, html.EscapeString(s), tag)
	}
	b.WriteString("<table>\n<thead><tr>")
	for i, h := range t.head {
		cell("th", i, h)
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, r := range t.rows {
		b.WriteString("<tr>")
		for i, c := range r {
			cell("td", i, c)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}
