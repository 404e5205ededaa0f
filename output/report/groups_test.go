package report

import (
	"strings"
	"testing"
)

// TestCombineGroups: the one result of two groups has their totals,
// exact (histograms merged, as the engine merges threads), every group's
// scripts marked with their group, and the groups' results; it reads back,
// and two of them merge group by group, but not with other groups.
func TestCombineGroups(t *testing.T) {
	sa, sb := fakeSummary(t, 1), fakeSummary(t, 2)
	a, err := NewResult(sa, Versions{Gbench: "0.1.0"}, fakeIntervals(t, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewResult(sb, Versions{Gbench: "0.1.0"}, fakeIntervals(t, 3, 2))
	if err != nil {
		t.Fatal(err)
	}
	c, err := CombineGroups([]Group{{Name: "readers", Result: a}, {Name: "writers", Result: b}})
	if err != nil {
		t.Fatal(err)
	}
	c = roundTrip(t, c)
	want := sa.Result.Stats
	want.Merge(sb.Result.Stats)
	checkDist(t, "total", &c.Latency, want.Total.Latency, want.Total.Hist)
	if c.Runs != 1 || len(c.Parts) != 0 || len(c.Groups) != 2 || c.Config.Clients != a.Config.Clients+b.Config.Clients ||
		len(c.Scripts) != len(a.Scripts)+len(b.Scripts) || c.Scripts[0].Group != "readers" || c.Scripts[len(c.Scripts)-1].Group != "writers" ||
		c.Counters.Processed != a.Counters.Processed+b.Counters.Processed || len(c.Intervals) != 3 {
		t.Fatalf("runs %d, parts %d, groups %d, clients %d, scripts %d, processed %d, intervals %d",
			c.Runs, len(c.Parts), len(c.Groups), c.Config.Clients, len(c.Scripts), c.Counters.Processed, len(c.Intervals))
	}
	m, err := Merge([]*Result{c, c})
	if err != nil {
		t.Fatal(err)
	}
	m = roundTrip(t, m)
	var text strings.Builder
	if err := MergeText(&text, m); err != nil || !strings.Contains(text.String(), "\ngroup writers: ") {
		t.Errorf("merge text: %v\n%s", err, text.String())
	}
	if len(m.Groups) != 2 || m.Groups[1].Name != "writers" || m.Groups[1].Result.Counters.Processed != 2*b.Counters.Processed ||
		m.Groups[0].Result.Latency.Count != 2*a.Latency.Count || m.Counters.Processed != 2*c.Counters.Processed {
		t.Errorf("merged: %d groups", len(m.Groups))
	}
	other, err := CombineGroups([]Group{{Name: "readers", Result: a}, {Name: "other", Result: b}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Merge([]*Result{c, other}); err == nil || !strings.Contains(err.Error(), "different client groups: readers, other against readers, writers") {
		t.Errorf("merge of other groups: %v", err)
	}
	// A group's result holding groups is refused when read.
	bad := *c
	inner := *a
	inner.Groups = []Group{{Name: "x", Result: b}}
	bad.Groups = []Group{{Name: "readers", Result: &inner}, {Name: "writers", Result: b}}
	var buf strings.Builder
	if err := bad.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadResult(strings.NewReader(buf.String())); err == nil || !strings.Contains(err.Error(), "groups do not nest") {
		t.Errorf("nested groups: %v", err)
	}
}
