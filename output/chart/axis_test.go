package chart

import (
	"math"
	"testing"
)

// TestYAxisExtremes checks axes for the smallest and largest values a
// hand-edited result can hold: a few ticks, a finite top at or above the
// value (FuzzMatrixReport found an endless tick loop for 5e-324).
func TestYAxisExtremes(t *testing.T) {
	for _, max := range []float64{5e-324, 1e-310, 1e-300, 0.003, 1, 253790, 1e300, 1.7e308, math.MaxFloat64} {
		a := newYAxis(max)
		ticks := a.ticks()
		if math.IsInf(a.top, 0) || !(a.step > 0) || len(ticks) < 2 || len(ticks) > 12 || a.top < max*(1-1e-9) && a.top != 1 {
			t.Errorf("newYAxis(%g) = %+v with %d ticks", max, a, len(ticks))
		}
	}
}
