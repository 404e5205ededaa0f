package report

import (
	"fmt"

	"github.com/gbench/gbench/result/schema"
)

// gridReads is the hit rate the reads obtained, per cell: the samples'
// client-side counts (schema.Reads) added up. It is shown only when some
// sample counted reads, and a cell without any reads its "—".
func (m *matrixDoc) gridReads() {
	type count struct{ hits, misses int64 }
	counts := map[schema.CellID]count{}
	for _, s := range m.r.Samples {
		if s.Reads == nil {
			continue
		}
		id := schema.CellID{Path: s.Path, Mix: s.Mix, Keys: s.Keys, Connections: s.Connections, Rate: s.Rate}
		c := counts[id]
		c.hits, c.misses = c.hits+s.Reads.Hits, c.misses+s.Reads.Misses
		counts[id] = c
	}
	if len(counts) == 0 {
		return
	}
	d := m.dims()
	paths := pathNames(&m.r.Plan)
	m.printf("## Hit rate obtained\n\n")
	m.printf("The reads' hits over all reads of a cell's samples, as gbench counted them from the replies: a GET-like reply is a hit unless nil, a SELECT is a hit when it returned a row; writes count neither. — marks a cell that read nothing.\n\n")
	m.tableHead(d.head(), paths, "---:")
	for _, row := range m.rows() {
		cells := d.cells(row)
		for _, p := range paths {
			c, ok := counts[schema.CellID{Path: p, Mix: row.mix, Keys: row.keys, Connections: row.conns, Rate: row.rate}]
			if !ok || c.hits+c.misses == 0 {
				cells = append(cells, "—")
				continue
			}
			cells = append(cells, fmt.Sprintf("%.1f%% of %s", 100*float64(c.hits)/float64(c.hits+c.misses), thousands(float64(c.hits+c.misses))))
		}
		m.tableRow(cells)
	}
	m.printf("\n")
}
