package matrix

import (
	"math/rand/v2"

	"github.com/gbench/gbench/workloads"
)

// slot is one planned sample.
type slot struct {
	path        workloads.Path
	keys, conns int
	repeat      int
	seed        uint64 // the engine's random seed
}

// cellKey identifies a cell of the matrix.
type cellKey struct {
	path        string
	keys, conns int
}

// order lists every sample of c, Repeats per cell, in a shuffled order
// that depends only on the plan and c.Seed: the same plan and seed give
// the same order, so that a run can be replayed. Repeats are numbered
// per cell in the order they run; each sample gets its own random seed.
func order(c *Config) []slot {
	var out []slot
	for range c.Repeats {
		for _, p := range c.Paths {
			for _, k := range c.Keys {
				for _, n := range c.Connections {
					out = append(out, slot{path: p, keys: k, conns: n})
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(c.Seed, seedStream))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	seen := map[cellKey]int{}
	for i := range out {
		s := &out[i]
		key := cellKey{s.path.Name, s.keys, s.conns}
		seen[key]++
		s.repeat = seen[key]
		s.seed = rng.Uint64()
	}
	return out
}

// seedStream is the second half of the PCG seed: any constant works, it
// only has to stay the same for --seed to replay old runs.
const seedStream = 0x6762656e63686d78 // "gbenchmx"
