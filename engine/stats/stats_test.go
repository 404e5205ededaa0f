package stats

import (
	"math"
	"testing"
)

// BenchmarkRecordTransaction is what a thread does per transaction: the
// overall, per-script and -P interval statistics, and one command's -r
// statistics. No lock is involved: each thread owns its block.
func BenchmarkRecordTransaction(b *testing.B) {
	blk := NewBlock([]int{2, 3}, true)
	interval := NewTxn()
	b.ReportAllocs()
	lat := 100.0
	for b.Loop() {
		lat = math.Mod(lat*1.7+13, 50000)
		blk.Total.Record(OK, lat, 3, 1)
		blk.Scripts[1].Record(OK, lat, 3, 1)
		interval.Record(OK, lat, 3, 1)
		c := &blk.Commands[1][2]
		c.Latency.Add(lat)
		c.Hist.Record(int64(lat))
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	blk := NewBlock([]int{1}, true)
	allocs := testing.AllocsPerRun(1000, func() {
		blk.Total.Record(OK, 1234, 5, 2)
		blk.Commands[0][0].Hist.Record(999)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per record", allocs)
	}
}

// TestMergeEqualsRecordingTogether: merging two threads' blocks gives the
// same counts, sums, extremes and percentiles as one block that recorded
// everything.
func TestMergeEqualsRecordingTogether(t *testing.T) {
	a, b, all := NewBlock([]int{1}, true), NewBlock([]int{1}, true), NewBlock([]int{1}, true)
	for i := 0; i < 10000; i++ {
		lat := float64(i*37%5000 + 1)
		st := OK
		if i%97 == 0 {
			st = SerializationFailure
		}
		dst := a
		if i%3 == 0 {
			dst = b
		}
		dst.Total.Record(st, lat, 2, 1+i%2)
		all.Total.Record(st, lat, 2, 1+i%2)
	}
	a.Merge(b)
	x, y := a.Total, all.Total
	if x.Cnt != y.Cnt || x.SerializationFailures != y.SerializationFailures || x.Retried != y.Retried ||
		x.Latency != y.Latency && math.Abs(x.Latency.Sum-y.Latency.Sum) > 1e-6 {
		t.Errorf("merged %+v, recorded together %+v", x, y)
	}
	for _, q := range []float64{50, 90, 99, 99.9, 100} {
		if x.Hist.Quantile(q) != y.Hist.Quantile(q) {
			t.Errorf("p%v: merged %d, together %d", q, x.Hist.Quantile(q), y.Hist.Quantile(q))
		}
	}
}

func TestSimpleStddevMatchesDefinition(t *testing.T) {
	var s Simple
	vals := []float64{2, 4, 4, 4, 5, 5, 7, 9}
	for _, v := range vals {
		s.Add(v)
	}
	if s.Mean() != 5 || s.Stddev() != 2 || s.Min != 2 || s.Max != 9 {
		t.Errorf("mean %v stddev %v min %v max %v", s.Mean(), s.Stddev(), s.Min, s.Max)
	}
}

// TestSimpleStddevOfEqualValues: six values of 1234.567 make the variance
// -2.3e-10 by rounding; the standard deviation is 0, not NaN (which no
// summary prints and no JSON holds).
func TestSimpleStddevOfEqualValues(t *testing.T) {
	var s Simple
	for range 6 {
		s.Add(1234.567)
	}
	if d := s.Stddev(); d != 0 {
		t.Errorf("stddev of equal values = %v, want 0", d)
	}
}
