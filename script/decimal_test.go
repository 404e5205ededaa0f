package script

import (
	"math"
	"strconv"
	"testing"
)

// TestAppendInt compares AppendInt with strconv at every length and sign,
// and on a buffer with room and one without.
func TestAppendInt(t *testing.T) {
	vals := []int64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 9999, 10000, 65535, 99999, 100000,
		123456789, 999999999, 1000000000, math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1}
	for p := int64(1); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, 10*p-1)
	}
	for _, v := range vals {
		for _, x := range []int64{v, -v} {
			want := "key:" + strconv.FormatInt(x, 10)
			if got := string(AppendInt([]byte("key:"), x)); got != want {
				t.Errorf("AppendInt(%d) = %q, want %q", x, got, want)
			}
			roomy := append(make([]byte, 0, 64), "key:"...)
			if got := string(AppendInt(roomy, x)); got != want {
				t.Errorf("AppendInt(%d) with room = %q, want %q", x, got, want)
			}
		}
	}
}

func BenchmarkAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := int64(0); b.Loop(); i++ {
		buf = AppendInt(buf[:0], 100000+i%100000)
	}
}

// BenchmarkStrconvAppendInt is the same with strconv, for comparison.
func BenchmarkStrconvAppendInt(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := int64(0); b.Loop(); i++ {
		buf = strconv.AppendInt(buf[:0], 100000+i%100000, 10)
	}
}
