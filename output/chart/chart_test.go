package chart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

func TestNiceAxis(t *testing.T) {
	for _, c := range []struct {
		max, top, step float64
	}{
		{0, 1, 0.2},              // empty chart
		{math.NaN(), 1, 0.2},     // nothing valid
		{1, 1, 0.2},              // exact
		{7, 8, 2},                // 7/5 = 1.4 rounds up to 2
		{253790, 300000, 100000}, // 50758 rounds up to 1e5
		{839678, 1e6, 200000},
		{11, 12.5, 2.5}, // 2.2 rounds up to 2.5
	} {
		a := newYAxis(c.max)
		if math.Abs(a.top-c.top) > 1e-9 || math.Abs(a.step-c.step) > 1e-9 {
			t.Errorf("newYAxis(%v) = top %v step %v, want %v %v", c.max, a.top, a.step, c.top, c.step)
		}
		if ticks := a.ticks(); ticks[0] != 0 || math.Abs(ticks[len(ticks)-1]-a.top) > 1e-9 {
			t.Errorf("newYAxis(%v).ticks() = %v", c.max, ticks)
		}
	}
}

func TestSI(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.25, "0.25"}, {2.5, "2.5"}, {20, "20"}, {999, "999"},
		{1000, "1k"}, {50000, "50k"}, {250000, "250k"}, {1.25e6, "1.25M"}, {-3000, "-3k"},
	} {
		if got := SI(c.v); got != c.want {
			t.Errorf("SI(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// parse checks that doc is well-formed XML and returns its elements'
// names in order.
func parse(t *testing.T, doc []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var names []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok {
			names = append(names, se.Name.Local)
		}
	}
}

func countOf(names []string, name string) int {
	n := 0
	for _, x := range names {
		if x == name {
			n++
		}
	}
	return n
}

func TestLineBreaksAtMissingPoints(t *testing.T) {
	c := Line{
		Title: "a <title> & more", Categories: []string{"4", "64", "256", "1024"},
		Series: []Series{
			{Name: "whole", Points: []Point{{Y: 1, Valid: true}, {Y: 2, Valid: true}, {Y: 3, Valid: true}, {Y: 4, Valid: true}}},
			{Name: "gap", Points: []Point{{Y: 1, Valid: true}, {Y: 2, Valid: true}, {}, {Y: 4, Lo: 3, Hi: 5, Valid: true}}},
		},
	}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	names := parse(t, b.Bytes())
	// whole: one polyline; gap: one for the first two points, none for
	// the lone last point.
	if n := countOf(names, "polyline"); n != 2 {
		t.Errorf("%d polylines, want 2", n)
	}
	if n := countOf(names, "circle"); n != 7 {
		t.Errorf("%d markers, want 7", n)
	}
	if !strings.Contains(b.String(), "a &lt;title&gt; &amp; more") {
		t.Error("the title is not escaped")
	}
	if !strings.Contains(b.String(), "gap, 1024: 4  (range 3 to 5)") {
		t.Errorf("no hover title with the range:\n%s", b.String())
	}
}

func TestBarsSkipNaN(t *testing.T) {
	c := Bars{
		Title: "latency", Groups: []string{"a", "b"}, Unit: "ms",
		Series: []BarSeries{{Name: "p50", Values: []float64{1, math.NaN()}}, {Name: "p99", Values: []float64{2, 3}}},
	}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	names := parse(t, b.Bytes())
	// The background, three bars and two legend squares.
	if n := countOf(names, "rect"); n != 1+3+2 {
		t.Errorf("%d rects, want 6", n)
	}
	if strings.Contains(b.String(), "NaN") {
		t.Error("NaN in the output")
	}
}

func TestNumericLineWithReferences(t *testing.T) {
	c := Line{
		Title: "p99 against offered rate", Numeric: true, XUnit: "tps", Unit: "ms",
		Series: []Series{
			{Name: "search", Dots: true, Points: []Point{{X: 100, Y: 2, Valid: true}, {X: 400, Y: 30, Valid: true}}},
			{Name: "median", Points: []Point{{X: 50, Y: 1, Valid: true}, {X: 200, Y: 3, Lo: 2, Hi: 4, Valid: true}}},
		},
		Rules: []Rule{{Y: 50, Label: "SLO p99 <= 50 ms"}},
		Marks: []Mark{{At: 180, Label: "answer 180 tps"}},
	}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	names := parse(t, b.Bytes())
	if n := countOf(names, "polyline"); n != 1 {
		t.Errorf("%d polylines, want 1 (dots are not joined)", n)
	}
	out := b.String()
	for _, want := range []string{"SLO p99 &lt;= 50 ms", "answer 180 tps", "search, 400 tps: 30 ms", `stroke-dasharray="6 4"`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// The rule sets the top of the y axis: 50 is above every point.
	if !strings.Contains(out, ">50</text>") {
		t.Errorf("the y axis does not reach the rule:\n%s", out)
	}
	// x ticks are numbers from 0 up to the largest x.
	if !strings.Contains(out, ">0</text>") || !strings.Contains(out, ">400</text>") {
		t.Errorf("no numeric x ticks:\n%s", out)
	}
}

func TestBarsWithRanges(t *testing.T) {
	c := Bars{Title: "tps", Groups: []string{"tps"}, Series: []BarSeries{
		{Name: "A", Values: []float64{100}, Lo: []float64{90}, Hi: []float64{130}},
		{Name: "B", Values: []float64{130}},
	}}
	var b bytes.Buffer
	if err := c.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	names := parse(t, b.Bytes())
	if !strings.Contains(b.String(), "tps, A: 100  (range 90 to 130)") {
		t.Errorf("no range in the hover title:\n%s", b.String())
	}
	// The whisker (3 lines) on top of the same grid and axes.
	var plain bytes.Buffer
	(&Bars{Title: "tps", Groups: []string{"tps"}, Series: []BarSeries{{Name: "A", Values: []float64{100}}, {Name: "B", Values: []float64{130}}}}).WriteSVG(&plain)
	if n, m := countOf(names, "line"), countOf(parse(t, plain.Bytes()), "line"); n != m+3 {
		t.Errorf("%d lines with a range, %d without: want 3 more", n, m)
	}
}
