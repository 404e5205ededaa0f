package matrix

import (
	"github.com/gbench/gbench/run/series"
)

// slot is one planned sample.
type slot struct {
	path        *Path
	mix         *Mix // nil: the path's first script
	keys, conns int  // keys is 0 in a plan without keys per request
	rate        float64
	repeat      int
	seed        uint64 // the engine's random seed
}

// order lists every sample of c, Repeats per cell, in a shuffled order
// that depends only on the plan and c.Seed (series.Order): the same plan
// and seed give the same order, so that a run can be replayed. Repeats are
// numbered per cell in the order they run; each sample gets its own random
// seed. Cells are listed paths first, then mixes, keys, connections and
// rates: for the read matrix, the order of earlier versions.
func order(c *Config) []slot {
	var cells []slot
	for i := range c.Paths {
		for _, m := range c.mixList() {
			for _, k := range c.keyList() {
				for _, n := range c.Connections {
					for _, rate := range c.rateList() {
						cells = append(cells, slot{path: &c.Paths[i], mix: m, keys: k, conns: n, rate: rate})
					}
				}
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
