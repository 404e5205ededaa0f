package series

import "math/rand/v2"

// Slot is one planned run of an Order.
type Slot struct {
	// Point indexes the points of the plan.
	Point int
	// Repeat numbers the runs of one point in the order they run, from 1.
	Repeat int
	// Seed is the run's own random seed (the engine's --random-seed).
	Seed uint64
}

// Order lists repeats runs of each of points points in a shuffled order
// that depends only on the counts and seed, so that a run can be
// replayed: shuffling spreads slow drifts of the machine (a neighbour's
// load, caches warming, a checkpoint) over every point instead of
// penalising whichever ran last. Each run gets its own random seed, drawn
// from the same generator after the shuffle.
func Order(points, repeats int, seed uint64) []Slot {
	out := make([]Slot, 0, points*repeats)
	for range repeats {
		for p := range points {
			out = append(out, Slot{Point: p})
		}
	}
	rng := rand.New(rand.NewPCG(seed, seedStream))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	seen := make([]int, points)
	for i := range out {
		s := &out[i]
		seen[s.Point]++
		s.Repeat = seen[s.Point]
		s.Seed = rng.Uint64()
	}
	return out
}

// Interleave lists repeats runs of each of points points in rounds: every
// point once per round, in a shuffled order within each round. A/B series
// use it so that neither side runs its repeats in a block, where a drift
// of the machine would look like a difference between the sides.
func Interleave(points, repeats int, seed uint64) []Slot {
	rng := rand.New(rand.NewPCG(seed, seedStream))
	out := make([]Slot, 0, points*repeats)
	for r := range repeats {
		round := rng.Perm(points)
		for _, p := range round {
			out = append(out, Slot{Point: p, Repeat: r + 1})
		}
	}
	for i := range out {
		out[i].Seed = rng.Uint64()
	}
	return out
}

// seedStream is the second half of the PCG seed: any constant works, it
// only has to stay the same for a seed to replay old runs (gbench matrix
// has used it from its first version).
const seedStream = 0x6762656e63686d78 // "gbenchmx"
