// Package chart draws the two kinds of chart gbench's reports need, as
// standalone SVG documents, with no dependency beyond the standard
// library:
//
//   - Line: one line per series over categories (connection counts), each
//     point with an optional range drawn as a whisker (min–max of repeats);
//   - Bars: groups of bars, one bar per series in each group (latency
//     percentiles per path).
//
// A chart is a plain value: fill it in and call WriteSVG. The y axis is
// linear from zero to a round number above the largest value; the x axis
// is categorical, evenly spaced. Output is deterministic (fixed
// precision, no timestamps or random ids), so it can be pinned by golden
// files. Every point carries a <title> with its exact value, which
// browsers show on hover.
//
//	c := chart.Line{Title: "req/s, 16 keys", XLabel: "connections", YLabel: "req/s",
//		Categories: []string{"4", "64", "256"},
//		Series: []chart.Series{{Name: "sql-any", Points: []chart.Point{{Y: 1e4, Lo: 9e3, Hi: 1.1e4}, ...}}}}
//	err := c.WriteSVG(w)
package chart
