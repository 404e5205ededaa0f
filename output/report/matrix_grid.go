package report

import (
	"fmt"
	"strings"

	"github.com/gbench/gbench/result/schema"
)

// A plan that is not the read matrix's paths × keys × connections is
// reported as a grid: one row per combination of its cells' other
// dimensions (mix, keys, connections, rate), one column per path.

// gridRow is one row of a grid: a cell without its path.
type gridRow struct {
	mix   string
	keys  int
	conns int
	rate  float64
}

// rows lists the grid's rows in plan order.
func (m *matrixDoc) rows() []gridRow {
	p := &m.r.Plan
	var out []gridRow
	for _, mix := range p.MixList() {
		for _, k := range p.KeyList() {
			for _, n := range p.Connections {
				for _, rate := range p.RateList() {
					out = append(out, gridRow{mix, k, n, rate})
				}
			}
		}
	}
	return out
}

// at is the cell of a row and a path.
func (m *matrixDoc) at(row gridRow, path string) schema.Cell {
	return m.cells[schema.CellID{Path: path, Mix: row.mix, Keys: row.keys, Connections: row.conns, Rate: row.rate}]
}

// dims are the dimensions a grid's rows show: those the plan varies, or
// connections alone when it varies none.
type dims struct{ mix, keys, conns, rate bool }

func (m *matrixDoc) dims() dims {
	p := &m.r.Plan
	d := dims{mix: len(p.Mixes) > 1, keys: len(p.Keys) > 1, conns: len(p.Connections) > 1, rate: len(p.Rates) > 1}
	if d == (dims{}) {
		d.conns = true
	}
	return d
}

// head is the leading columns of a grid table, as tableHead takes them.
func (d dims) head() string {
	var h []string
	if d.mix {
		h = append(h, "mix")
	}
	if d.keys {
		h = append(h, "keys")
	}
	if d.conns {
		h = append(h, "connections")
	}
	if d.rate {
		h = append(h, "rate")
	}
	return strings.Join(h, " | ")
}

// cells is a row's leading cells.
func (d dims) cells(r gridRow) []string {
	var c []string
	if d.mix {
		c = append(c, r.mix)
	}
	if d.keys {
		c = append(c, fmt.Sprint(r.keys))
	}
	if d.conns {
		c = append(c, fmt.Sprint(r.conns))
	}
	if d.rate {
		c = append(c, rateText(r.rate))
	}
	return c
}

// label names a row in a chart: "5% updates, 16 keys".
func (d dims) label(r gridRow) string {
	var l []string
	if d.mix {
		l = append(l, r.mix)
	}
	if d.keys {
		l = append(l, count(r.keys, "key"))
	}
	if d.conns {
		l = append(l, count(r.conns, "conn"))
	}
	if d.rate {
		l = append(l, rateText(r.rate))
	}
	return strings.Join(l, ", ")
}

func rateText(r float64) string {
	if r == 0 {
		return "unthrottled"
	}
	return thousands(r) + " req/s"
}

// planText says what a plan that is not the read matrix measured.
func (m *matrixDoc) planText(paths []string) {
	p := &m.r.Plan
	var what []string
	what = append(what, strings.Join(paths, ", "))
	if len(p.Mixes) > 0 {
		var mixes []string
		for _, mx := range p.Mixes {
			mixes = append(mixes, mixText(mx))
		}
		what = append(what, "the mixes "+strings.Join(mixes, ", "))
	}
	if len(p.Keys) > 0 {
		what = append(what, joinInts(p.Keys)+" keys per request")
	}
	what = append(what, joinInts(p.Connections)+" connections")
	if len(p.Rates) > 0 {
		var rates []string
		for _, r := range p.RateList() {
			rates = append(rates, rateText(r))
		}
		what = append(what, "rates "+strings.Join(rates, ", "))
	}
	each := trim(p.DurationS) + " s"
	if p.Requests > 0 {
		each = thousands(float64(p.Requests)) + " requests (shared by the connections)"
	}
	m.printf("%s: %s of %s each, %d samples in a shuffled order (seed %d), %s. ", strings.Join(what, " × "),
		count(p.Repeats, "repeat"), each, planned(m.r), p.Seed, count(p.Threads, "client thread"))
	switch {
	case len(p.Keys) > 0 && p.HotRows > 0:
		m.printf("A request of N keys reads N distinct random keys among the %d hot rows 1..%d", p.HotRows, p.HotRows)
	case len(p.Keys) > 0 && p.RandomKeys:
		m.printf("A request of N keys reads N distinct random keys")
	case len(p.Keys) > 0:
		m.printf("A request of N keys reads the fixed keys 1..N")
	default:
		m.printf("The dataset")
	}
	m.printf(" of %s items of %d bytes", thousands(float64(p.Items)), p.ValueSize)
	if p.KVKeys > 0 {
		m.printf(" and %s kv keys", thousands(float64(p.KVKeys)))
	}
	m.printf(".")
	if p.IntervalS > 0 {
		m.printf(" Each sample records its throughput every %s s.", trim(p.IntervalS))
	}
	m.printf(" Each path's scripts are in the JSON result (`plan.paths[].scripts`).\n\n")
}

// mixText is "`5% updates` (read 95, write 5)".
func mixText(mx schema.PlanMix) string {
	var w []string
	for _, x := range mx.Weights {
		w = append(w, fmt.Sprintf("%s %d", x.Script, x.Weight))
	}
	return fmt.Sprintf("`%s` (%s)", mx.Name, strings.Join(w, ", "))
}

// grid writes the median req/s with its range per row and path.
func (m *matrixDoc) grid() {
	d := m.dims()
	paths := pathNames(&m.r.Plan)
	m.printf("## Requests per second\n\n")
	m.printf("Median req/s of each cell over its repeats, min–max in parentheses.\n\n")
	m.tableHead(d.head(), paths, "---:")
	for _, row := range m.rows() {
		cells := d.cells(row)
		for _, p := range paths {
			cells = append(cells, m.reqsText(m.at(row, p)))
		}
		m.tableRow(cells)
	}
	m.printf("\n![Requests per second](%s)\n\n", GridChart)
}

// gridRatios writes, per row, the median req/s of each path over every
// path listed before it.
func (m *matrixDoc) gridRatios() {
	paths := pathNames(&m.r.Plan)
	if len(paths) < 2 {
		return
	}
	d := m.dims()
	var heads [][2]string
	var cols []string
	for j := range paths {
		for i := range j {
			heads = append(heads, [2]string{paths[j], paths[i]})
			cols = append(cols, paths[j]+" / "+paths[i])
		}
	}
	m.printf("## Ratios\n\n")
	m.printf("Median req/s of one path divided by another's, in the same row: above 1 the first is faster.\n\n")
	m.tableHead(d.head(), cols, "---:")
	for _, row := range m.rows() {
		cells := d.cells(row)
		for _, h := range heads {
			cells = append(cells, ratioText(m.at(row, h[0]), m.at(row, h[1])))
		}
		m.tableRow(cells)
	}
	m.printf("\n")
}

// gridLatency writes the latency percentiles per row and path.
func (m *matrixDoc) gridLatency() {
	d := m.dims()
	m.printf("## Latency\n\n")
	m.printf("Milliseconds per request, medians over the repeats of each percentile")
	if len(m.r.Plan.Rates) > 0 {
		m.printf("; under a rate, from each request's scheduled start")
	}
	m.printf(".\n\n")
	m.tableHead(d.head()+" | path", []string{"mean", "p50", "p90", "p99", "p99.9", "max"}, "---:")
	for _, row := range m.rows() {
		for _, p := range pathNames(&m.r.Plan) {
			c := m.at(row, p)
			cells := append(d.cells(row), p)
			for _, us := range []float64{c.MeanUs, c.P50Us, c.P90Us, c.P99Us, c.P999Us, c.MaxUs} {
				cells = append(cells, msText(c, us))
			}
			m.tableRow(cells)
		}
	}
	m.printf("\n![p99 latency](%s)\n\n", GridLatencyChart)
}

// gridCost writes the CPU per request and memory per row and path.
func (m *matrixDoc) gridCost() {
	d := m.dims()
	other := false
	for _, s := range m.r.Samples {
		other = other || len(s.OtherServers) > 0
	}
	m.printf("## Cost per request\n\n")
	m.printf("CPU time per request in microseconds, on the server a path's cost is counted on (`server` of the plan's path: every process of it, from its cgroup when gbench started it, else PostgreSQL's postmaster and children from /proc and Redis's INFO cpu), over the steady part of each sample, and in gbench itself. ")
	if other {
		m.printf("A path that talks to two servers has the other's CPU per request in its own column. ")
	}
	m.printf("A server figure that could be wrong is not given: — marks a cell none of whose samples could be measured, with the reasons below the table. Memory is the server's in the middle of a sample.\n\n")
	cols := []string{"server", "server CPU µs/req"}
	if other {
		cols = append(cols, "other server CPU µs/req")
	}
	cols = append(cols, "client CPU µs/req", "server memory")
	resp := m.hasRESP()
	if resp {
		m.printf("%s\n\n", respIntro)
		cols = append(cols, respCols...)
	}
	m.tableHead(d.head()+" | path", cols, "---:")
	var shown []schema.Cell
	servers := map[string]string{}
	for _, pp := range m.r.Plan.Paths {
		servers[pp.Name] = pp.Server
	}
	for _, row := range m.rows() {
		for _, p := range pathNames(&m.r.Plan) {
			c := m.at(row, p)
			cells := append(d.cells(row), p, servers[p], serverCPUText(c))
			if other {
				cells = append(cells, otherCPUText(c))
			}
			cells = append(cells, clientCPUText(c), memoryText(c))
			if resp {
				cells = append(cells, respTexts(c)...)
			}
			m.tableRow(cells)
			shown = append(shown, c)
		}
	}
	m.printf("\n")
	m.allCPUNotes()
	if resp {
		m.respNotes(shown)
	}
}

func otherCPUText(c schema.Cell) string {
	if !c.OtherCPU {
		return "—"
	}
	return sig3(c.OtherUsPerReq)
}

// allCPUNotes lists why samples have no server CPU figure.
func (m *matrixDoc) allCPUNotes() {
	n := 0
	for _, s := range m.r.Samples {
		if !s.Valid() || s.Server == nil || s.Server.CPU != nil || s.Server.CPUNote == "" {
			continue
		}
		if n == 0 {
			m.printf("Server CPU not measured:\n\n")
		}
		n++
		m.printf("- %s, repeat %d: %s\n", sampleText(&s), s.Repeat, s.Server.CPUNote)
	}
	if n > 0 {
		m.printf("\n")
	}
}
