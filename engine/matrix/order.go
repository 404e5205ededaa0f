package matrix

import (
	"github.com/gbench/gbench/engine/series"
	"github.com/gbench/gbench/workloads"
)

// slot is one planned sample.
type slot struct {
	path        workloads.Path
	keys, conns int
	repeat      int
	seed        uint64 // the engine's random seed
}

// order lists every sample of c, Repeats per cell, in a shuffled order
// that depends only on the plan and c.Seed (series.Order): the same plan
// and seed give the same order, so that a run can be replayed. Repeats are
// numbered per cell in the order they run; each sample gets its own random
// seed.
func order(c *Config) []slot {
	var cells []slot
	for _, p := range c.Paths {
		for _, k := range c.Keys {
			for _, n := range c.Connections {
				cells = append(cells, slot{path: p, keys: k, conns: n})
			}
		}
	}
	var out []slot
	for _, s := range series.Order(len(cells), c.Repeats, c.Seed) {
		sl := cells[s.Point]
		sl.repeat, sl.seed = s.Repeat, s.Seed
		out = append(out, sl)
	}
	return out
}

// cellKey identifies a cell of the matrix.
type cellKey struct {
	path        string
	keys, conns int
}
