package report

import (
	"slices"
	"sort"
)

// indexOf is an interval's boundary; results written before intervals had
// an index number them by position.
func indexOf(ivs []Interval, k int) int {
	if ivs[k].Index > 0 {
		return ivs[k].Index
	}
	return k + 1
}

// boundaries returns the boundaries a merge keeps: those that every run
// that went on to them (or past them) reported. A run's report that came
// late covers several boundaries and ends at the last; the others' reports
// are then combined up to it, so every transaction of every interval is in
// exactly one merged interval.
func boundaries(in []*Result) []int {
	var all []int
	lists := make([][]int, len(in))
	for i, r := range in {
		for k := range r.Intervals {
			lists[i] = append(lists[i], indexOf(r.Intervals, k))
		}
		all = append(all, lists[i]...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	var keep []int
	for _, b := range all {
		shared := true
		for _, l := range lists {
			if len(l) > 0 && l[len(l)-1] >= b && !slices.Contains(l, b) {
				shared = false
				break
			}
		}
		if shared {
			keep = append(keep, b)
		}
	}
	return keep
}

// intervals merges the inputs' intervals by boundary (see boundaries). A
// merged interval's length is the longest of the runs' lengths in it, its
// end the latest; Runs says how many runs it covers.
func (m *merger) intervals(in []*Result) []Interval {
	keep := boundaries(in)
	if len(keep) == 0 {
		return nil
	}
	out := make([]Interval, len(keep)) // never grows: m.acc holds pointers into it
	for g := range out {
		out[g].Index = keep[g]
	}
	for _, r := range in {
		length := make([]float64, len(out))
		seen := make([]bool, len(out))
		for k := range r.Intervals {
			src := &r.Intervals[k]
			g := sort.SearchInts(keep, indexOf(r.Intervals, k))
			o := &out[g]
			if src.End.After(o.End) {
				o.End = src.End
			}
			o.ElapsedS = max(o.ElapsedS, src.ElapsedS)
			length[g] += src.LengthS
			o.LengthS = max(o.LengthS, length[g])
			o.Counters.add(&src.Counters)
			o.Lag = mergeSimple(o.Lag, src.Lag)
			m.take(&o.Latency, &src.Latency)
			if !seen[g] {
				seen[g] = true
				o.Runs += max(src.Runs, r.Runs)
			}
		}
	}
	return out
}
