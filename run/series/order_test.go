package series

import (
	"slices"
	"testing"
)

func TestOrderShufflesAndReplays(t *testing.T) {
	got := Order(5, 3, 42)
	if len(got) != 15 {
		t.Fatalf("%d slots, want 15", len(got))
	}
	repeats := make([][]int, 5)
	seeds := map[uint64]bool{}
	for _, s := range got {
		repeats[s.Point] = append(repeats[s.Point], s.Repeat)
		seeds[s.Seed] = true
	}
	for p, r := range repeats {
		if !slices.Equal(r, []int{1, 2, 3}) {
			t.Errorf("point %d: repeats %v, want 1, 2, 3 in running order", p, r)
		}
	}
	if len(seeds) != 15 {
		t.Errorf("%d distinct seeds, want 15", len(seeds))
	}
	if !slices.Equal(got, Order(5, 3, 42)) {
		t.Error("the same counts and seed gave another order")
	}
	if slices.Equal(got, Order(5, 3, 43)) {
		t.Error("another seed gave the same order")
	}
	sorted := true
	for i := 1; i < len(got); i++ {
		sorted = sorted && got[i-1].Point <= got[i].Point
	}
	if sorted {
		t.Error("not shuffled")
	}
}

func TestInterleaveRunsEveryPointEachRound(t *testing.T) {
	got := Interleave(2, 5, 7)
	if len(got) != 10 {
		t.Fatalf("%d slots", len(got))
	}
	firsts := map[int]int{}
	for r := range 5 {
		round := got[2*r : 2*r+2]
		if round[0].Point == round[1].Point || round[0].Repeat != r+1 || round[1].Repeat != r+1 {
			t.Errorf("round %d: %+v", r+1, round)
		}
		firsts[round[0].Point]++
	}
	if len(firsts) != 2 {
		t.Errorf("the same side ran first in every round: %v", firsts)
	}
	if !slices.Equal(got, Interleave(2, 5, 7)) {
		t.Error("not replayable")
	}
}

func TestStat(t *testing.T) {
	for _, c := range []struct {
		in     []float64
		want   Stat
		spread float64
	}{
		{nil, Stat{}, 0},                                   // nothing
		{[]float64{3}, Stat{3, 3, 3}, 0},                   // one
		{[]float64{105, 95, 100}, Stat{100, 95, 105}, 0.1}, // ±5%
		{[]float64{4, 1, 3, 2}, Stat{2.5, 1, 4}, 1.2},      // even: mean of the middle two
	} {
		in := slices.Clone(c.in)
		got := NewStat(c.in)
		if got != c.want || !slices.Equal(in, c.in) || got.Spread() != c.spread {
			t.Errorf("NewStat(%v) = %+v spread %v, want %+v spread %v (input kept)", in, got, got.Spread(), c.want, c.spread)
		}
	}
}
