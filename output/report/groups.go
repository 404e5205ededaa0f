package report

import (
	"fmt"
	"slices"
)

// Group is one client group of a run of several (gbench --group NAME):
// its name and its own complete result.
type Group struct {
	Name   string  `json:"name"`
	Result *Result `json:"result"`
}

// CombineGroups makes the one result of a run of client groups: the
// totals of the groups, exact (counts added, histograms merged, -P
// intervals paired by their boundary, tps the sum of the groups'), its
// scripts those of every group in order, each marked with its group, and
// the groups' own results in Groups. The inputs are not modified.
func CombineGroups(groups []Group) (*Result, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("no group to combine")
	}
	bare := make([]*Result, len(groups))
	var scripts []Script
	for i, g := range groups {
		r := *g.Result
		r.Scripts, r.Groups, r.Thresholds, r.Warmup = nil, nil, nil, nil
		bare[i] = &r
		for _, s := range g.Result.Scripts {
			s.Group = g.Name
			scripts = append(scripts, s)
		}
	}
	out, err := Merge(bare)
	if err != nil {
		return nil, err
	}
	// One run, not a merge of runs: the groups say what each ran.
	out.Runs, out.Parts, out.Warnings = 1, nil, nil
	out.Scripts = scripts
	out.Groups = slices.Clone(groups)
	for _, g := range groups {
		for _, w := range g.Result.Warnings {
			out.Warnings = append(out.Warnings, "group "+g.Name+": "+w)
		}
	}
	return out, nil
}

// compatibleGroups explains why b's groups cannot be merged with a's.
func compatibleGroups(a, b *Result) error {
	if len(a.Groups) != len(b.Groups) {
		return fmt.Errorf("different client groups: %s against %s", groupNames(b), groupNames(a))
	}
	for i := range a.Groups {
		if a.Groups[i].Name != b.Groups[i].Name {
			return fmt.Errorf("different client groups: %s against %s", groupNames(b), groupNames(a))
		}
	}
	return nil
}

func groupNames(r *Result) string {
	if len(r.Groups) == 0 {
		return "none"
	}
	s := ""
	for i, g := range r.Groups {
		if i > 0 {
			s += ", "
		}
		s += g.Name
	}
	return s
}

// mergeGroups merges the inputs' groups, group by group: a merge of
// results of client groups has the groups of each, merged.
func mergeGroups(in []*Result) ([]Group, error) {
	if len(in[0].Groups) == 0 {
		return nil, nil
	}
	out := make([]Group, len(in[0].Groups))
	for k, g := range in[0].Groups {
		rs := make([]*Result, len(in))
		for i, r := range in {
			rs[i] = r.Groups[k].Result
		}
		m, err := Merge(rs)
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", g.Name, err)
		}
		out[k] = Group{Name: g.Name, Result: m}
	}
	return out, nil
}
