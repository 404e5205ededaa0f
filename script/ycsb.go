package script

import "math"

// YCSB's request distributions (gbench extension). pgbench's
// random_zipfian draws an exact Zipf law by rejection and needs s > 1;
// YCSB draws with the method of Gray et al. ("Quickly generating
// billion-record synthetic databases", SIGMOD 1994) and the constant 0.99,
// then, for its "zipfian" distribution, scrambles the rank with a 64-bit
// FNV-1a hash so that the popular keys are spread over the key space.

// YCSBTheta is YCSB's zipfian constant.
const YCSBTheta = 0.99

// ycsbScrambleItems is the number of ranks YCSB's scrambled zipfian draws
// from before hashing (its ITEM_COUNT, 10^10, plus one as its generator
// counts both bounds).
const ycsbScrambleItems = 10_000_000_000 + 1

// zetaExact is how many terms of zeta are summed one by one; the rest
// comes from the Euler-Maclaurin formula, whose error there is below 1e-15.
const zetaExact = 1024

// zetaPrefix[i] is the sum of 1/k^YCSBTheta for k = 1..i.
var zetaPrefix = func() [zetaExact + 1]float64 {
	var z [zetaExact + 1]float64
	for i := 1; i <= zetaExact; i++ {
		z[i] = z[i-1] + math.Pow(float64(i), -YCSBTheta)
	}
	return z
}()

// zeta returns the sum of 1/k^YCSBTheta for k = 1..n in constant time.
func zeta(n int64) float64 {
	if n <= zetaExact {
		return zetaPrefix[max(n, 0)]
	}
	const t = YCSBTheta
	a, b := float64(zetaExact), float64(n)
	f := func(x float64) float64 { return math.Pow(x, -t) }
	f1 := func(x float64) float64 { return -t * math.Pow(x, -t-1) }
	f3 := func(x float64) float64 { return -t * (t + 1) * (t + 2) * math.Pow(x, -t-3) }
	// sum over k = a..b of f(k), with f(a) already in the prefix.
	tail := (math.Pow(b, 1-t)-math.Pow(a, 1-t))/(1-t) + (f(a)+f(b))/2 +
		(f1(b)-f1(a))/12 - (f3(b)-f3(a))/720
	return zetaPrefix[zetaExact] - f(a) + tail
}

// gray maps a uniform u in [0, 1) to a rank in [0, n) with YCSB's
// zipfian generator: ranks 0 and 1 exactly, the rest by Gray's
// approximation of the inverse distribution function.
func gray(u float64, n int64) int64 {
	const t = YCSBTheta
	zn := zeta(n)
	uz := u * zn
	switch {
	case n <= 1 || uz < 1:
		return 0
	case uz < 1+math.Pow(0.5, t):
		return 1
	}
	eta := (1 - math.Pow(2/float64(n), 1-t)) / (1 - (1+math.Pow(0.5, t))/zn)
	r := int64(float64(n) * math.Pow(eta*u-eta+1, 1/(1-t)))
	return min(r, n-1)
}

// grayCDF is the probability that gray(u, n), u uniform, is at most k:
// the distribution YCSB's generator defines, for tests and documentation.
func grayCDF(k, n int64) float64 {
	const t = YCSBTheta
	zn := zeta(n)
	switch {
	case k >= n-1:
		return 1
	case k == 0:
		return 1 / zn
	case k == 1:
		return (1 + math.Pow(0.5, t)) / zn
	}
	eta := (1 - math.Pow(2/float64(n), 1-t)) / (1 - (1+math.Pow(0.5, t))/zn)
	// gray returns at most k when n*(eta*u-eta+1)^alpha < k+1.
	u := (math.Pow(float64(k+1)/float64(n), 1-t) - 1 + eta) / eta
	return max(u, (1+math.Pow(0.5, t))/zn)
}

// YCSBZipfian is YCSB's zipfian generator over [min, max]: min is the
// most frequent value, min+i has a probability close to that of rank i+1
// of a Zipf law with exponent YCSBTheta.
func (p *PRNG) YCSBZipfian(min, max int64) int64 {
	return min + gray(p.Float64(), max-min+1)
}

// YCSBScrambled is YCSB's scrambled zipfian over [min, max]: a rank drawn
// by YCSB's zipfian generator over 10^10 items, hashed with FNV-1a
// (pgbench's hash_fnv1a with seed 0, made non-negative) and reduced modulo
// the range.
func (p *PRNG) YCSBScrambled(min, max int64) int64 {
	return min + scramble(gray(p.Float64(), ycsbScrambleItems), max-min+1)
}

// scramble maps rank r to [0, n) as YCSB does.
func scramble(r, n int64) int64 {
	h := hashFNV1a(r, 0)
	if h < 0 {
		h = -h
	}
	m := h % n
	if m < 0 { // -MinInt64 is still negative
		m += n
	}
	return m
}
