package report

import (
	"fmt"
	"strings"

	"github.com/gbench/gbench/result/schema"
)

// throughput writes, for each keys per request, the median req/s with its
// range per connection count and path, and links the chart.
func (m *matrixDoc) throughput() {
	p := &m.r.Plan
	m.printf("## Requests per second\n\n")
	for _, k := range p.Keys {
		m.printf("### %s\n\n", keysTitle(k))
		m.tableHead("connections", pathNames(p), "---:")
		for _, n := range p.Connections {
			row := []string{fmt.Sprint(n)}
			for _, pp := range p.Paths {
				row = append(row, m.reqsText(m.cell(pp.Name, k, n)))
			}
			m.tableRow(row)
		}
		m.printf("\n![Requests per second against connections, %s](%s)\n\n", keysTitle(k), ThroughputChart(k))
	}
}

// reqsText is a cell's median req/s and range.
func (m *matrixDoc) reqsText(c schema.Cell) string {
	if c.Samples == 0 {
		return "—"
	}
	s := thousands(c.ReqS)
	if c.Samples > 1 {
		s += fmt.Sprintf(" (%s–%s)", thousands(c.MinReqS), thousands(c.MaxReqS))
	}
	return s + m.nText(c)
}

// nText marks a cell with fewer valid samples than repeats.
func (m *matrixDoc) nText(c schema.Cell) string {
	if c.Samples < m.r.Plan.Repeats {
		return fmt.Sprintf(" n=%d", c.Samples)
	}
	return ""
}

// ratios writes the median req/s of each path over every path listed
// before it, per keys and connections.
func (m *matrixDoc) ratios() {
	paths := pathNames(&m.r.Plan)
	if len(paths) < 2 {
		return
	}
	var heads [][2]string
	for j := range paths {
		for i := range j {
			heads = append(heads, [2]string{paths[j], paths[i]})
		}
	}
	// List the pairs with the first path first: sql-mget / sql-any, then
	// resp-mget / sql-any, resp-mget / sql-mget.
	var cols []string
	for _, h := range heads {
		cols = append(cols, h[0]+" / "+h[1])
	}
	m.printf("## Ratios\n\n")
	m.printf("Median req/s of one path divided by another's, at the same keys per request and connections: above 1 the first is faster.\n\n")
	m.tableHead("keys | connections", cols, "---:")
	for _, k := range m.r.Plan.Keys {
		for _, n := range m.r.Plan.Connections {
			row := []string{fmt.Sprint(k), fmt.Sprint(n)}
			for _, h := range heads {
				row = append(row, ratioText(m.cell(h[0], k, n), m.cell(h[1], k, n)))
			}
			m.tableRow(row)
		}
	}
	m.printf("\n")
}

func ratioText(a, b schema.Cell) string {
	if a.Samples == 0 || b.Samples == 0 || b.ReqS == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", a.ReqS/b.ReqS)
}

// latency writes the latency percentiles at the highest connection count.
func (m *matrixDoc) latency() {
	m.printf("## Latency at %d connections\n\n", m.top)
	m.printf("Milliseconds per request, medians over the repeats of each percentile.\n\n")
	m.tableHead("keys | path", []string{"mean", "p50", "p90", "p99", "p99.9", "max"}, "---:")
	for _, k := range m.r.Plan.Keys {
		for _, pp := range m.r.Plan.Paths {
			c := m.cell(pp.Name, k, m.top)
			row := []string{fmt.Sprint(k), pp.Name}
			for _, us := range []float64{c.MeanUs, c.P50Us, c.P90Us, c.P99Us, c.P999Us, c.MaxUs} {
				row = append(row, msText(c, us))
			}
			m.tableRow(row)
		}
	}
	m.printf("\n")
	for _, k := range m.r.Plan.Keys {
		m.printf("![Latency percentiles at %d connections, %s](%s)\n", m.top, keysTitle(k), LatencyChart(k))
	}
	m.printf("\n")
}

func msText(c schema.Cell, us float64) string {
	if c.Samples == 0 {
		return "—"
	}
	return sig3(us / 1000)
}

// cost writes the CPU time per request on the server and in gbench, and
// the server's memory, at the highest connection count.
func (m *matrixDoc) cost() {
	m.printf("## Cost per request at %d connections\n\n", m.top)
	m.printf("CPU time per request in microseconds: on the server (every process of the server: from its cgroup when gbench started it, else PostgreSQL's postmaster and all its children from /proc and Redis's INFO cpu), over the steady part of each sample, and in gbench itself. ")
	m.printf("A server figure that could be wrong is not given: — marks a cell none of whose samples could be measured, with the reasons below the table. ")
	m.printf("On a machine where client and server share the cores, the server's CPU per request says which path is cheaper whatever the client's speed. ")
	m.printf("Memory is the server's in the middle of a sample: PostgreSQL's processes summed (PSS: shared memory counted once), Redis's used_memory.\n\n")
	cols, resp := []string{"server CPU µs/req", "client CPU µs/req", "server memory"}, m.hasRESP()
	if resp {
		m.printf("%s\n\n", respIntro)
		cols = append(cols, respCols...)
	}
	m.tableHead("keys | path", cols, "---:")
	var shown []schema.Cell
	for _, k := range m.r.Plan.Keys {
		for _, pp := range m.r.Plan.Paths {
			c := m.cell(pp.Name, k, m.top)
			row := []string{fmt.Sprint(k), pp.Name, serverCPUText(c), clientCPUText(c), memoryText(c)}
			if resp {
				row = append(row, respTexts(c)...)
			}
			m.tableRow(row)
			shown = append(shown, c)
		}
	}
	m.printf("\n")
	m.cpuNotes()
	if resp {
		m.respNotes(shown)
	}
}

// cpuNotes lists, for the cells of the cost table, why samples have no
// server CPU figure.
func (m *matrixDoc) cpuNotes() {
	n := 0
	for _, s := range m.r.Samples {
		if s.Connections != m.top || !s.Valid() || s.Server == nil || s.Server.CPU != nil || s.Server.CPUNote == "" {
			continue
		}
		if n == 0 {
			m.printf("Server CPU not measured:\n\n")
		}
		n++
		m.printf("- %s, %s, repeat %d: %s\n", s.Path, count(s.Keys, "key"), s.Repeat, s.Server.CPUNote)
	}
	if n > 0 {
		m.printf("\n")
	}
}

func serverCPUText(c schema.Cell) string {
	switch {
	case !c.ServerCPU:
		return "—"
	case c.ServerSamples < c.Samples:
		return fmt.Sprintf("%s (%d of %d samples)", sig3(c.ServerUsPerReq), c.ServerSamples, c.Samples)
	}
	return sig3(c.ServerUsPerReq)
}

func clientCPUText(c schema.Cell) string {
	if c.Samples == 0 {
		return "—"
	}
	return sig3(c.ClientUsPerReq)
}

func memoryText(c schema.Cell) string {
	if c.MemoryKind == "" {
		return "—"
	}
	return fmt.Sprintf("%.1f MiB (%s)", c.MemoryBytes/(1<<20), strings.ReplaceAll(c.MemoryKind, "_", " "))
}

// tableHead writes a markdown table header: first holds the leading
// columns ("keys | path"), numbers right-aligned and paths left-aligned;
// cols are aligned with align.
func (m *matrixDoc) tableHead(first string, cols []string, align string) {
	lead := strings.Split(first, " | ")
	m.printf("| %s | %s |\n", first, strings.Join(cols, " | "))
	var seps []string
	for _, l := range lead {
		if l == "path" || l == "mix" || l == "server" {
			seps = append(seps, "---")
		} else {
			seps = append(seps, "---:")
		}
	}
	for range cols {
		seps = append(seps, align)
	}
	m.printf("|%s|\n", strings.Join(seps, "|"))
}

func (m *matrixDoc) tableRow(cells []string) {
	m.printf("| %s |\n", strings.Join(cells, " | "))
}

// pathNames lists the plan's paths.
func pathNames(p *schema.Plan) []string {
	var out []string
	for _, pp := range p.Paths {
		out = append(out, pp.Name)
	}
	return out
}

// keysTitle says "1 key per request" or "16 keys per request".
func keysTitle(k int) string {
	if k == 1 {
		return "1 key per request"
	}
	return fmt.Sprintf("%d keys per request", k)
}
