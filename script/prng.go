package script

import (
	"math"
	"math/bits"
)

// PRNG is the xoroshiro128** 1.0 generator that pgbench 15 uses (through
// PostgreSQL's pg_prng), seeded through splitmix64 so that the same seed
// gives pgbench's sequences. The zero value is not usable; call Seed. A PRNG
// is a plain value: copying it saves and restores the sequence state.
type PRNG struct {
	s0, s1 uint64
}

// Seed initialises the generator from a 64-bit seed.
func (p *PRNG) Seed(seed uint64) {
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ v>>30) * 0xBF58476D1CE4E5B9
	v = (v ^ v>>27) * 0x94D049BB133111EB
	return v ^ v>>31
}

// Uint64 returns a uniformly distributed 64-bit value.
func (p *PRNG) Uint64() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ sx<<16
	p.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Uint64Range returns a uniform value in [lo, hi] by bitmask rejection.
func (p *PRNG) Uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(bits.LeadingZeros64(r))
	for {
		v := p.Uint64() >> shift
		if v <= r {
			return lo + v
		}
	}
}

// Float64 returns a uniform double in [0, 1) built from 52 random bits.
func (p *PRNG) Float64() float64 {
	return math.Ldexp(float64(p.Uint64()>>12), -52)
}

// Normal returns a standard normal value (Box-Muller, one output per call).
func (p *PRNG) Normal() float64 {
	u1 := 1.0 - p.Float64()
	u2 := 1.0 - p.Float64()
	return math.Sqrt(-2.0*math.Log(u1)) * math.Sin(2.0*math.Pi*u2)
}

// Int64Range returns a uniform integer in [min, max] like pgbench's getrand.
// The caller ensures max-min does not overflow.
func (p *PRNG) Int64Range(min, max int64) int64 {
	return min + int64(p.Uint64Range(0, uint64(max-min)))
}

// Exponential is pgbench's random_exponential.
func (p *PRNG) Exponential(min, max int64, param float64) int64 {
	cut := math.Exp(-param)
	uniform := 1.0 - p.Float64()
	r := -math.Log(cut+(1.0-cut)*uniform) / param
	return min + int64(float64(max-min+1)*r)
}

// Gaussian is pgbench's random_gaussian.
func (p *PRNG) Gaussian(min, max int64, param float64) int64 {
	var stdev float64
	for {
		stdev = p.Normal()
		if stdev >= -param && stdev < param {
			break
		}
	}
	r := (stdev + param) / (param * 2.0)
	return min + int64(float64(max-min+1)*r)
}

// Zipfian is pgbench's random_zipfian (rejection method, s > 1).
func (p *PRNG) Zipfian(min, max int64, s float64) int64 {
	n := max - min + 1
	return min - 1 + p.zipf(n, s)
}

func (p *PRNG) zipf(n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := p.Float64()
		v := p.Float64()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// Poisson returns a delay with a Poisson-process mean of center, rounded
// like pgbench's getPoissonRand (used by --rate).
func (p *PRNG) Poisson(center float64) int64 {
	uniform := 1.0 - p.Float64()
	return int64(-math.Log(uniform)*center + 0.5)
}
