package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gbench/gbench/result/schema"
)

// Matrix writes the markdown report of a matrix run: throughput tables per
// keys per request, ratios between the paths, latency and cost per request
// at the highest connection count, the environment and the command. It
// links the charts MatrixCharts returns, which the caller writes next to
// it. Every figure is the median over the valid samples of a cell; the
// caller decides whether a partial or failed result deserves a report.
//
// A plan of paths × keys × connections (the read matrix) gets a section of
// throughput per keys per request; any other plan (mixes, rates, no keys)
// gets one table per section whose rows are its cells' other dimensions
// (the mixed plan's: mix × keys) and whose columns are the paths. A plan
// that records series (cold fill) gets their tables and charts too, and
// samples with the servers' CPU series a table of cores per cell and a
// chart per grid row (ServerCPUChart).
func Matrix(w io.Writer, r *schema.Result) error {
	m := newMatrixDoc(r)
	m.header()
	m.thresholds()
	if m.readShape() {
		m.throughput()
		m.ratios()
		m.latency()
		m.cost()
	} else {
		m.grid()
		m.gridRatios()
		m.gridLatency()
		m.gridCost()
		m.gridReads()
	}
	m.resources()
	m.serverCPU()
	m.series()
	m.environment()
	_, err := w.Write(m.b.Bytes())
	return err
}

// matrixDoc builds the report in memory.
type matrixDoc struct {
	b     bytes.Buffer
	r     *schema.Result
	cells map[schema.CellID]schema.Cell
	top   int // the highest connection count
}

func newMatrixDoc(r *schema.Result) *matrixDoc {
	m := &matrixDoc{r: r, cells: map[schema.CellID]schema.Cell{}}
	for _, c := range r.Cells() {
		m.cells[c.ID()] = c
	}
	for _, n := range r.Plan.Connections {
		m.top = max(m.top, n)
	}
	return m
}

// cell is a cell of the read matrix's shape (no mixes, no rates).
func (m *matrixDoc) cell(path string, keys, conns int) schema.Cell {
	return m.cells[schema.CellID{Path: path, Keys: keys, Connections: conns}]
}

// readShape reports whether the plan is paths × keys × connections only,
// as the read matrix: no mixes, no rates, keys per request, no series.
func (m *matrixDoc) readShape() bool {
	p := &m.r.Plan
	return len(p.Mixes) == 0 && len(p.Rates) == 0 && len(p.Keys) > 0 && p.IntervalS == 0
}

func (m *matrixDoc) printf(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

// header states what was measured and how to read the figures.
func (m *matrixDoc) header() {
	r, p := m.r, &m.r.Plan
	switch {
	case p.Name == "":
		m.printf("# PostgreSQL as a cache vs Redis: gbench matrix\n\n")
	case p.Title != "":
		m.printf("# %s: gbench matrix, plan %s\n\n", p.Title, p.Name)
	default:
		m.printf("# gbench matrix, plan %s\n\n", p.Name)
	}
	if missing := r.Missing(); missing > 0 || r.Partial {
		m.printf("> **Partial result.** %d of the %d planned samples are missing, failed or were interrupted", missing, planned(r))
		if r.Interrupted {
			m.printf(" (the run was interrupted)")
		}
		m.printf(". Cells with fewer samples than repeats say how many they have (n=).\n\n")
	}
	var paths []string
	for _, pp := range p.Paths {
		paths = append(paths, "`"+pp.Name+"`")
	}
	if m.readShape() && p.Requests == 0 {
		keys := "the fixed keys 1..N (as in the reference)"
		if p.RandomKeys {
			keys = "N distinct random keys"
		}
		if p.HotRows > 0 {
			keys = fmt.Sprintf("N distinct random keys among the %d hot rows 1..%d", p.HotRows, p.HotRows)
		}
		m.printf("%s × %s keys per request × %s connections, %s of %s s each: %d samples in a shuffled order (seed %d), %s. ",
			strings.Join(paths, ", "), joinInts(p.Keys), joinInts(p.Connections), count(p.Repeats, "repeat"), trim(p.DurationS),
			planned(r), p.Seed, count(p.Threads, "client thread"))
		m.printf("A request of N keys reads %s out of %s items of %d bytes.\n\n", keys, thousands(float64(p.Items)), p.ValueSize)
	} else {
		m.planText(paths)
	}
	m.printf("Every figure is the **median** over a cell's repeats; ranges are min–max. ")
	m.printf("Contract check: %s.\n\n", contractText(r))
}

// planned is the number of samples the plan asked for.
func planned(r *schema.Result) int { return r.Plan.Planned() }

func contractText(r *schema.Result) string {
	c := &r.Contract
	switch {
	case !c.Passed:
		return "**failed**: " + c.Error
	case c.Checked && len(c.Paths) == 0:
		return "none — no path reads values back (contract none)"
	case c.Checked && len(c.Paths) < len(r.Plan.Paths):
		return "passed by " + strings.Join(quoted(c.Paths), ", ") + " — each returned the dataset's values, in request order, for the same keys; the other paths read nothing back"
	case c.Checked:
		return "passed — every path returned the dataset's values, in request order, for the same keys"
	}
	return "passed — every path returned the same values, in request order, for the same keys"
}

// quoted puts names in backticks.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "`" + n + "`"
	}
	return out
}

// environment lists the command, machine and servers.
func (m *matrixDoc) environment() {
	r, e := m.r, &m.r.Environment
	m.printf("## Environment\n\n")
	m.printf("```\n%s\n```\n\n", shellJoin(e.Command))
	for _, k := range sortedKeys(e.Variables) {
		m.printf("- Environment: `%s=%s`\n", k, e.Variables[k])
	}
	m.printf("- Run: %s to %s (%s)\n", r.Start.Format(time.RFC3339), r.End.Format(time.RFC3339), r.End.Sub(r.Start).Round(time.Second))
	m.printf("- gbench %s, %s; %s %s %s\n", e.Gbench, e.Go, e.OS.Sysname, e.OS.Release, e.OS.Machine)
	m.printf("- CPU: %s × %d\n", or(e.CPU.Model, "unknown"), e.CPU.Count)
	m.printf("- Load average (1, 5, 15 min): %s at the start, %s at the end\n", loads(e.LoadStart), loads(e.LoadEnd))
	if e.Postgres.Version != "" || r.Plan.Name == "" {
		m.endpoint("PostgreSQL", &e.Postgres)
	}
	if e.Redis.Version != "" || r.Plan.Name == "" {
		m.endpoint("Redis", &e.Redis)
	}
	if len(r.Warmup) > 0 {
		w := r.Warmup[0]
		with := ""
		if w.Keys > 0 {
			with = fmt.Sprintf(" with %d keys", w.Keys)
		}
		m.printf("- Warm-up: a full read of `items`, then each path for %s s%s at %d connections (not counted); every connection of every sample runs its statement once before the clock starts\n",
			trim(r.Plan.WarmupS), with, w.Connections)
	}
	for _, e := range e.Servers {
		m.endpoint(e.Name, &e)
	}
	m.failures()
	m.printf("\nHow the figures are taken: docs/methodology.md in gbench's sources; the JSON result: docs/matrix.md.\n")
}

// endpoint describes one server.
func (m *matrixDoc) endpoint(name string, e *schema.Endpoint) {
	where := "existing server at " + e.Address
	if e.Sandbox {
		where = "throwaway sandbox"
	}
	// Results of earlier versions have no durability field; their
	// settings still say it.
	if d := or(e.Durability, durabilityOf(e.Settings)); d != "" {
		where += ", durability " + d
	}
	var set []string
	for _, s := range e.Settings {
		set = append(set, "`"+s.Name+"="+s.Value+"`")
	}
	m.printf("- %s %s (%s): %s\n", name, e.Version, where, strings.Join(set, ", "))
	if e.CostNote != "" {
		m.printf("  - CPU and memory not measured: %s\n", e.CostNote)
	} else if e.CPUSource != "" {
		m.printf("  - CPU time read from: %s\n", e.CPUSource)
	}
}

// thresholds lists each cell's verdicts on its thresholds, a breached
// cell first marked BREACHED.
func (m *matrixDoc) thresholds() {
	gs := m.r.Thresholds
	if len(gs) == 0 {
		return
	}
	bad := schema.BreachedCells(gs)
	m.printf("## Thresholds\n\n")
	if len(bad) == 0 {
		m.printf("Every cell met its thresholds (medians over its repeats; %s).\n\n", count(len(gs), "cell"))
	} else {
		m.printf("**%d of %s breached a threshold** (medians over its repeats; gbench matrix exited with status 3).\n\n", len(bad), count(len(gs), "cell"))
	}
	m.printf("| cell | verdicts |\n|---|---|\n")
	for _, g := range gs {
		var vs []string
		for _, v := range g.Verdicts {
			t := v.Threshold + ": " + v.Display
			if !v.Met {
				t = "**" + t + " breached**"
			}
			vs = append(vs, t)
		}
		name := g.Name()
		if g.Breached {
			name = "**BREACHED** " + name
		}
		m.printf("| %s | %s |\n", name, strings.Join(vs, "; "))
	}
	m.printf("\n")
}

// failures lists the failed and interrupted samples, and the samples
// that needed more than one try, with each failed try's error.
func (m *matrixDoc) failures() {
	for _, s := range m.r.Samples {
		for i, t := range s.Retries {
			m.printf("- Retried sample: %s, repeat %d: try %d failed at %s: %s\n", sampleText(&s), s.Repeat, i+1, t.Start.Format(time.TimeOnly), t.Error)
		}
		switch {
		case s.Failed():
			m.printf("- Failed sample: %s, repeat %d: %s\n", sampleText(&s), s.Repeat, s.Error)
		case s.Interrupted:
			m.printf("- Interrupted sample (not counted): %s, repeat %d\n", sampleText(&s), s.Repeat)
		}
	}
}

// sampleText names a sample's cell: "sql-any, 16 keys, 64 connections",
// with its mix and rate when it has them.
func sampleText(s *schema.Sample) string {
	t := s.Path
	if s.Mix != "" {
		t += ", " + s.Mix
	}
	if s.Keys > 0 {
		t += ", " + count(s.Keys, "key")
	}
	t += fmt.Sprintf(", %d connections", s.Connections)
	if s.Rate > 0 {
		t += ", at " + thousands(s.Rate) + " req/s"
	}
	return t
}

func loads(l []float64) string {
	var s []string
	for _, v := range l {
		s = append(s, fmt.Sprintf("%.2f", v))
	}
	return strings.Join(s, ", ")
}

// durabilityOf names a server's durability from its recorded settings;
// "" when they do not hold all three.
func durabilityOf(settings []schema.Setting) string {
	m := map[string]string{}
	for _, s := range settings {
		m[s.Name] = s.Value
	}
	return schema.DurabilityOf(m)
}
