package script

import (
	"math"
	"testing"
)

// TestZeta checks the constant-time zeta against direct sums and against
// YCSB's published zeta(10^10, 0.99).
func TestZeta(t *testing.T) {
	sum := 0.0
	for i := int64(1); i <= 3_000_000; i++ {
		sum += math.Pow(float64(i), -YCSBTheta)
		if i <= 5000 || i%100_000 == 0 {
			if got := zeta(i); math.Abs(got-sum) > 1e-10*sum {
				t.Fatalf("zeta(%d) = %.15g, want %.15g", i, got, sum)
			}
		}
	}
	// YCSB's ScrambledZipfianGenerator hard-codes 26.46902820178302.
	if got := zeta(10_000_000_000); math.Abs(got-26.46902820178302) > 1e-7 {
		t.Errorf("zeta(10^10) = %.15g, want 26.46902820178302 (YCSB)", got)
	}
}

// chiSquareLimit is the value a chi-square statistic with df degrees of
// freedom exceeds with probability 1e-6 (Wilson-Hilferty): a correct
// generator passes with a fixed seed, and a wrong one (a wrong constant, an
// off-by-one rank, no scrambling) exceeds it by far.
func chiSquareLimit(df int) float64 {
	const z = 4.753 // the standard normal's 1-1e-6 quantile
	k := float64(df)
	return k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
}

// chiSquare compares observed counts with expected probabilities (each
// bin expecting at least 5 draws) and fails past chiSquareLimit.
func chiSquare(t *testing.T, what string, counts []int, probs []float64, draws int) {
	t.Helper()
	x2, limit := chiSquareStat(t, what, counts, probs, draws)
	t.Logf("%s: chi-square %.1f with %d degrees of freedom (limit %.1f at p = 1e-6)", what, x2, len(counts)-1, limit)
	if x2 > limit {
		t.Errorf("%s: chi-square %.1f > %.1f: the frequencies do not follow the distribution", what, x2, limit)
	}
}

// chiSquareStat returns the chi-square statistic of counts against probs
// and its limit.
func chiSquareStat(t *testing.T, what string, counts []int, probs []float64, draws int) (x2, limit float64) {
	t.Helper()
	total := 0.0
	for i, c := range counts {
		e := probs[i] * float64(draws)
		if e < 5 {
			t.Fatalf("%s: bin %d expects %.1f draws, fewer than 5", what, i, e)
		}
		x2 += (float64(c) - e) * (float64(c) - e) / e
		total += probs[i]
	}
	if math.Abs(total-1) > 1e-9 {
		t.Fatalf("%s: probabilities sum to %.12f", what, total)
	}
	return x2, chiSquareLimit(len(counts) - 1)
}

// TestYCSBZipfianFrequencies counts the values of random_ycsb_zipfian over
// 1000 items and checks them against YCSB's definition: ranks 0 and 1 with
// the exact Zipf probabilities 1/zeta(n) and 0.5^0.99/zeta(n), the rest as
// Gray's inverse distribution function gives them (grayCDF). Ranks 0..199
// are bins of their own, the rest bins of 100. The same counts are the
// "latest" distribution: YCSB's latest key is the last inserted minus this
// rank.
func TestYCSBZipfianFrequencies(t *testing.T) {
	const n, draws = 1000, 1_000_000
	var p PRNG
	p.Seed(28)
	hist := make([]int, n)
	for range draws {
		v := p.YCSBZipfian(1, n)
		if v < 1 || v > n {
			t.Fatalf("YCSBZipfian(1, %d) = %d", n, v)
		}
		hist[v-1]++
	}
	var counts []int
	var probs []float64
	bin := func(lo, hi int64) { // ranks lo..hi
		c := 0
		for r := lo; r <= hi; r++ {
			c += hist[r]
		}
		prev := 0.0
		if lo > 0 {
			prev = grayCDF(lo-1, n)
		}
		counts, probs = append(counts, c), append(probs, grayCDF(hi, n)-prev)
	}
	binAll := func() {
		for r := int64(0); r < 200; r++ {
			bin(r, r)
		}
		for r := int64(200); r < n; r += 100 {
			bin(r, r+99)
		}
	}
	binAll()
	zn := zeta(n)
	for r, want := range []float64{1 / zn, math.Pow(0.5, YCSBTheta) / zn} {
		got := float64(hist[r]) / draws
		sd := math.Sqrt(want * (1 - want) / draws) // binomial
		if math.Abs(got-want) > 5*sd {
			t.Errorf("rank %d: frequency %.5f, want %.5f +- %.5f (5 standard deviations)", r, got, want, 5*sd)
		}
	}
	chiSquare(t, "zipfian", counts, probs, draws)

}

// TestYCSBScrambledFrequencies counts the keys of random_ycsb_scrambled
// over 1000 keys. The expected probability of key j is the mass of the
// ranks below 2*10^6 that hash to j, plus the rest of the mass spread
// evenly: beyond 2*10^6 ranks each key receives thousands of ranks of
// nearly equal weight, so the error of that spread is far below the
// sampling noise.
func TestYCSBScrambledFrequencies(t *testing.T) {
	const n, draws, exact = 1000, 1_000_000, 2_000_000
	probs := make([]float64, n)
	prev := 0.0
	for r := int64(0); r < exact; r++ {
		c := grayCDF(r, ycsbScrambleItems)
		probs[scramble(r, n)] += c - prev
		prev = c
	}
	for j := range probs {
		probs[j] += (1 - prev) / n
	}
	var p PRNG
	p.Seed(28)
	counts := make([]int, n)
	for range draws {
		counts[p.YCSBScrambled(0, n-1)]++
	}
	chiSquare(t, "scrambled zipfian", counts, probs, draws)
	// The test's power: the same ranks unscrambled fail it by far.
	plain := make([]int, n)
	for range draws {
		plain[p.YCSBZipfian(0, n-1)]++
	}
	if x2, limit := chiSquareStat(t, "unscrambled", plain, probs, draws); x2 < 100*limit {
		t.Errorf("unscrambled zipfian against the scrambled one: chi-square %.0f, want far above %.1f", x2, limit)
	}
	// The most popular key is rank 0's: hash_fnv1a(0, 0) mod n.
	top := 0
	for j := range counts {
		if counts[j] > counts[top] {
			top = j
		}
	}
	if want := int(scramble(0, n)); top != want {
		t.Errorf("most frequent key %d, want %d (rank 0 hashed)", top, want)
	}
}

// TestYCSBFunctions checks the script functions' bounds and argument checks.
func TestYCSBFunctions(t *testing.T) {
	tests := []struct {
		expr, want, err string
	}{
		{"random_ycsb_zipfian(5, 5)", "5", ""},   // one item
		{"random_ycsb_scrambled(7, 7)", "7", ""}, // one key
		{"random_ycsb_zipfian(2, 1)", "", "empty range given to random"},
		{"random_ycsb_scrambled(1, 0)", "", "empty range given to random"},
	}
	for _, tc := range tests {
		got, static, runtime := evalText(t, tc.expr)
		if static != nil {
			t.Errorf("%s: %v", tc.expr, static)
			continue
		}
		if tc.err != "" {
			if runtime == nil || runtime.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.expr, runtime, tc.err)
			}
			continue
		}
		if runtime != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.expr, got, runtime, tc.want)
		}
	}
}

// TestYCSBLatestFrequencies draws YCSB's "latest" key as the bundled
// ycsb-d scripts do, through the script language: the newest record
// (:latest) is the most frequent, and latest - k has the probability of
// rank k of YCSB's zipfian over the n records (the same chi-square bins as
// TestYCSBZipfianFrequencies, mirrored).
func TestYCSBLatestFrequencies(t *testing.T) {
	const n, latest, draws = 1000, 1500, 400_000
	src := "\\set latest 1500\n\\set n 1000\n\\set k :latest - random_ycsb_zipfian(0, :n - 1)\n"
	s, err := Parse("latest.sql", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile([]*Script{s}, Simple, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(p, 28)
	slot := p.Syms.Slot("k")
	hist := make([]int, n)
	for range draws {
		for _, c := range s.Commands {
			if err := env.ExecSet(c.Set); err != nil {
				t.Fatal(err)
			}
		}
		b, _ := env.Vars.AppendText(nil, slot)
		var k int
		for _, d := range b {
			k = k*10 + int(d-'0')
		}
		if k <= latest-n || k > latest {
			t.Fatalf("latest key %d outside %d..%d", k, latest-n+1, latest)
		}
		hist[latest-k]++
	}
	var counts []int
	var probs []float64
	prev := 0.0
	for r := int64(0); r < n; {
		hi := r
		if r >= 100 {
			hi = min(r+99, n-1)
		}
		c := 0
		for i := r; i <= hi; i++ {
			c += hist[i]
		}
		cdf := grayCDF(hi, n)
		counts, probs = append(counts, c), append(probs, cdf-prev)
		prev, r = cdf, hi+1
	}
	chiSquare(t, "latest", counts, probs, draws)
	if hist[0] < hist[1] || hist[1] < hist[2] {
		t.Errorf("the newest keys are not the most frequent: %v", hist[:3])
	}
}
