package engine

import (
	"math"
	"time"

	"github.com/gbench/gbench/script"
)

// ramp is a thread's --rate schedule when the rate ramps linearly (a
// stage's rate=FROM..TO): a non-homogeneous Poisson process of intensity
// λ(t) = (from + (to-from)·t/T)/threads, drawn by the time transform.
// The process's operational time Λ(t) = ∫₀ᵗ λ is a homogeneous Poisson
// process of rate 1: each slot adds an exponential delay of mean 1 to v,
// drawn from the thread's throttle sequence (so a seed repeats the
// schedule), and the slot is at t = Λ⁻¹(v). A constant rate never comes
// here: the thread's ramp is nil and prepareThrottle keeps pgbench's
// delays.
type ramp struct {
	// Λ(t) = b·t + a·t²/2, t in ns: b is the starting intensity per ns, a
	// its slope per ns².
	a, b float64
	v    float64 // the operational time of the last slot
}

func newRamp(from, to float64, d time.Duration, threads int) *ramp {
	b := from / float64(threads) / 1e9
	return &ramp{b: b, a: (to - from) / float64(threads) / 1e9 / float64(d)}
}

// next draws the next slot's time on the thread clock, in ns.
func (r *ramp) next(rnd *script.PRNG) int64 {
	r.v += -math.Log(1.0 - rnd.Float64())
	return r.at(r.v)
}

// at is Λ⁻¹(v): the root of a·t²/2 + b·t = v in the form that stays exact
// when a is small or negative. A ramp down whose line reaches 0 before v
// has no root: no slot is ever that late, so it is past any end.
func (r *ramp) at(v float64) int64 {
	disc := r.b*r.b + 2*r.a*v
	if disc < 0 {
		return math.MaxInt64
	}
	t := 2 * v / (r.b + math.Sqrt(disc))
	if t >= math.MaxInt64/2 {
		return math.MaxInt64
	}
	return int64(t + 0.5)
}
