package series

import (
	"math"
	"slices"

	"github.com/gbench/gbench/result/schema"
)

// Median returns the median of xs, the mean of the two middle values for
// an even count, 0 for none. xs is not modified. It is schema.Median, kept
// here for the runners; the leaf schema owns it so that reading a result
// needs no runner.
func Median(xs []float64) float64 { return schema.Median(xs) }

// Stat sums up one figure over repeated runs: the median and the range.
type Stat struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// NewStat sums up xs; the zero Stat for none.
func NewStat(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	return Stat{Median: Median(xs), Min: slices.Min(xs), Max: slices.Max(xs)}
}

// Spread is the range relative to the median, (max - min) / median: 0.05
// means the runs differ by 5% of their median. It is 0 for a zero median.
func (s Stat) Spread() float64 {
	if s.Median == 0 {
		return 0
	}
	return math.Abs(s.Max-s.Min) / math.Abs(s.Median)
}
