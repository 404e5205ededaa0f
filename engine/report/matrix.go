package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/matrix/schema"
)

// Matrix writes the markdown report of a matrix run: throughput tables per
// keys per request, ratios between the paths, latency and cost per request
// at the highest connection count, the environment and the command. It
// links the charts MatrixCharts returns, which the caller writes next to
// it. Every figure is the median over the valid samples of a cell; the
// caller decides whether a partial or failed result deserves a report.
func Matrix(w io.Writer, r *schema.Result) error {
	m := newMatrixDoc(r)
	m.header()
	m.throughput()
	m.ratios()
	m.latency()
	m.cost()
	m.environment()
	_, err := w.Write(m.b.Bytes())
	return err
}

// matrixDoc builds the report in memory.
type matrixDoc struct {
	b     bytes.Buffer
	r     *schema.Result
	cells map[cellID]schema.Cell
	top   int // the highest connection count
}

type cellID struct {
	path        string
	keys, conns int
}

func newMatrixDoc(r *schema.Result) *matrixDoc {
	m := &matrixDoc{r: r, cells: map[cellID]schema.Cell{}}
	for _, c := range r.Cells() {
		m.cells[cellID{c.Path, c.Keys, c.Connections}] = c
	}
	for _, n := range r.Plan.Connections {
		m.top = max(m.top, n)
	}
	return m
}

func (m *matrixDoc) cell(path string, keys, conns int) schema.Cell {
	return m.cells[cellID{path, keys, conns}]
}

func (m *matrixDoc) printf(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

// header states what was measured and how to read the figures.
func (m *matrixDoc) header() {
	r, p := m.r, &m.r.Plan
	m.printf("# PostgreSQL as a cache vs Redis: gbench matrix\n\n")
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
	keys := "the fixed keys 1..N (as in the reference)"
	if p.RandomKeys {
		keys = "N distinct random keys"
	}
	m.printf("%s × %s keys per request × %s connections, %s of %s s each: %d samples in a shuffled order (seed %d), %s. ",
		strings.Join(paths, ", "), joinInts(p.Keys), joinInts(p.Connections), count(p.Repeats, "repeat"), trim(p.DurationS),
		planned(r), p.Seed, count(p.Threads, "client thread"))
	m.printf("A request of N keys reads %s out of %s items of %d bytes.\n\n", keys, thousands(float64(p.Items)), p.ValueSize)
	m.printf("Every figure is the **median** over a cell's repeats; ranges are min–max. ")
	m.printf("Contract check: %s.\n\n", contractText(r))
}

// planned is the number of samples the plan asked for.
func planned(r *schema.Result) int {
	p := &r.Plan
	return len(p.Paths) * len(p.Keys) * len(p.Connections) * p.Repeats
}

func contractText(r *schema.Result) string {
	if r.Contract.Passed {
		return "passed — every path returned the same values, in request order, for the same keys"
	}
	return "**failed**: " + r.Contract.Error
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
	m.endpoint("PostgreSQL", &e.Postgres)
	m.endpoint("Redis", &e.Redis)
	if len(r.Warmup) > 0 {
		w := r.Warmup[0]
		m.printf("- Warm-up: a full read of `items`, then each path for %s s with %d keys at %d connections (not counted); every connection of every sample runs its statement once before the clock starts\n",
			trim(r.Plan.WarmupS), w.Keys, w.Connections)
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

// failures lists the failed and interrupted samples, and the samples
// that needed more than one try, with each failed try's error.
func (m *matrixDoc) failures() {
	for _, s := range m.r.Samples {
		for i, t := range s.Retries {
			m.printf("- Retried sample: %s, %s, %d connections, repeat %d: try %d failed at %s: %s\n", s.Path, count(s.Keys, "key"),
				s.Connections, s.Repeat, i+1, t.Start.Format(time.TimeOnly), t.Error)
		}
		switch {
		case s.Failed():
			m.printf("- Failed sample: %s, %s, %d connections, repeat %d: %s\n", s.Path, count(s.Keys, "key"), s.Connections, s.Repeat, s.Error)
		case s.Interrupted:
			m.printf("- Interrupted sample (not counted): %s, %s, %d connections, repeat %d\n", s.Path, count(s.Keys, "key"), s.Connections, s.Repeat)
		}
	}
}

func loads(l []float64) string {
	var s []string
	for _, v := range l {
		s = append(s, fmt.Sprintf("%.2f", v))
	}
	return strings.Join(s, ", ")
}
