package report

import (
	"bytes"
	"fmt"
	"io"

	"github.com/gbench/gbench/result/schema"
)

// MatrixCompare writes the markdown comparison of two results of the same
// plan on the same data (schema.SamePlan, which the caller checks first):
// cell by cell, each side's median req/s with its repeats' min–max, the
// ratio of the medians, and whether the ranges overlap; the same for the
// p99 latency; then what differs between the two runs' servers. The
// names are what the page calls the two files.
func MatrixCompare(w io.Writer, before, after *schema.Result, beforeName, afterName string) error {
	c := &compareDoc{before: newMatrixDoc(before), after: newMatrixDoc(after)}
	c.write(beforeName, afterName)
	_, err := w.Write(c.b.Bytes())
	return err
}

type compareDoc struct {
	b             bytes.Buffer
	before, after *matrixDoc
}

func (c *compareDoc) printf(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

func (c *compareDoc) write(beforeName, afterName string) {
	p := &c.after.r.Plan
	name := p.Name
	if name == "" {
		name = "read"
	}
	c.printf("# gbench matrix: %s against %s\n\n", afterName, beforeName)
	c.printf("Plan %s", name)
	if p.Title != "" {
		c.printf(" (%s)", p.Title)
	}
	c.printf(", the same cells on the same data in both (%d samples each). ", p.Planned())
	c.printf("**after / before** is the ratio of the medians over each cell's repeats; the ranges are the repeats' min–max. ")
	c.printf("Where they **overlap**, the difference is within the spread of the repeats: not one to trust. ")
	c.printf("Where they are **apart**, every repeat of one side beat every repeat of the other")
	if p.Repeats < 3 {
		c.printf(" — with %s per cell, a weak sign", count(p.Repeats, "repeat"))
	}
	c.printf(".\n\n")
	c.throughput()
	c.latency()
	c.servers()
}

// rows are the rows of both results' plan (they are the same), and the
// dimensions they show.
func (c *compareDoc) rows() ([]gridRow, dims) { return c.after.rows(), c.after.dims() }

// table returns a writer of markdown tables into the page.
func (c *compareDoc) table() *matrixDoc { return &matrixDoc{r: c.after.r} }

// flush appends a table's text to the page.
func (c *compareDoc) flush(t *matrixDoc) { c.b.Write(t.b.Bytes()) }

// throughput compares the median req/s of every cell.
func (c *compareDoc) throughput() {
	rows, d := c.rows()
	c.printf("## Requests per second\n\n")
	t := c.table()
	t.tableHead(d.head()+" | path", []string{"before", "after", "after / before", "ranges"}, "---:")
	apart, faster := 0, 0
	for _, row := range rows {
		for _, path := range pathNames(&c.after.r.Plan) {
			a, b := c.before.at(row, path), c.after.at(row, path)
			verdict := overlapText(a.MinReqS, a.MaxReqS, b.MinReqS, b.MaxReqS, a.Samples, b.Samples)
			if verdict == "apart" {
				apart++
				if b.ReqS > a.ReqS {
					faster++
				}
			}
			t.tableRow(append(d.cells(row), path, c.before.reqsText(a), c.after.reqsText(b), ratioText(b, a), verdict))
		}
	}
	c.flush(t)
	total := len(rows) * len(c.after.r.Plan.Paths)
	c.printf("\n%d of %d cells apart: %d faster after, %d slower.\n\n", apart, total, faster, apart-faster)
}

// latency compares the median p99 of every cell.
func (c *compareDoc) latency() {
	rows, d := c.rows()
	c.printf("## p99 latency\n\n")
	c.printf("Milliseconds, median over the repeats; the range is the repeats' min–max.\n\n")
	t := c.table()
	t.tableHead(d.head()+" | path", []string{"before", "after", "after / before", "ranges"}, "---:")
	byCellB, byCellA := c.before.r.SamplesByCell(), c.after.r.SamplesByCell()
	for _, row := range rows {
		for _, path := range pathNames(&c.after.r.Plan) {
			id := schema.CellID{Path: path, Mix: row.mix, Keys: row.keys, Connections: row.conns, Rate: row.rate}
			a, b := p99Range(byCellB[id]), p99Range(byCellA[id])
			ratio := "—"
			if a.n > 0 && b.n > 0 && a.med > 0 {
				ratio = fmt.Sprintf("%.2f×", b.med/a.med)
			}
			t.tableRow(append(d.cells(row), path, a.text(), b.text(), ratio, overlapText(a.lo, a.hi, b.lo, b.hi, a.n, b.n)))
		}
	}
	c.flush(t)
	c.printf("\n")
}

// spread is a median and its range over a cell's samples.
type spread struct {
	med, lo, hi float64
	n           int
}

func p99Range(samples []*schema.Sample) spread {
	var xs []float64
	for _, s := range samples {
		xs = append(xs, float64(s.Latency.P99Us)/1000)
	}
	if len(xs) == 0 {
		return spread{}
	}
	s := spread{med: schema.Median(xs), lo: xs[0], hi: xs[0], n: len(xs)}
	for _, x := range xs {
		s.lo, s.hi = min(s.lo, x), max(s.hi, x)
	}
	return s
}

func (s spread) text() string {
	if s.n == 0 {
		return "—"
	}
	if s.n == 1 {
		return sig3(s.med)
	}
	return fmt.Sprintf("%s (%s–%s)", sig3(s.med), sig3(s.lo), sig3(s.hi))
}

// overlapText says whether two ranges overlap; "—" when a side has no
// valid sample.
func overlapText(alo, ahi, blo, bhi float64, an, bn int) string {
	switch {
	case an == 0 || bn == 0:
		return "—"
	case alo <= bhi && blo <= ahi:
		return "overlap"
	}
	return "apart"
}

// servers lists what differs between the two runs' servers and machine.
func (c *compareDoc) servers() {
	eb, ea := &c.before.r.Environment, &c.after.r.Environment
	var lines []string
	add := func(what, b, a string) {
		if a != b {
			lines = append(lines, fmt.Sprintf("- %s: %s → %s", what, or(b, "(none)"), or(a, "(none)")))
		}
	}
	for _, s := range []struct {
		name string
		b, a *schema.Endpoint
	}{{"PostgreSQL", &eb.Postgres, &ea.Postgres}, {"Redis", &eb.Redis, &ea.Redis}} {
		add(s.name+" version", s.b.Version, s.a.Version)
		settings := map[string][2]string{}
		var names []string
		for _, x := range s.b.Settings {
			settings[x.Name] = [2]string{x.Value, ""}
			names = append(names, x.Name)
		}
		for _, x := range s.a.Settings {
			v, ok := settings[x.Name]
			if !ok {
				names = append(names, x.Name)
			}
			settings[x.Name] = [2]string{v[0], x.Value}
		}
		for _, n := range names {
			add(s.name+" "+n, settings[n][0], settings[n][1])
		}
	}
	add("gbench", eb.Gbench, ea.Gbench)
	add("CPU", eb.CPU.Model, ea.CPU.Model)
	add("kernel", eb.OS.Release, ea.OS.Release)
	c.printf("## What differs between the runs\n\n")
	if len(lines) == 0 {
		c.printf("Nothing in the servers' versions and recorded settings, gbench's version, the CPU or the kernel.\n")
		return
	}
	for _, l := range lines {
		c.printf("%s\n", l)
	}
}
