package schema

import (
	"fmt"
	"slices"
)

// SamePlan returns nil when a and b measured the same cells in the same
// way on the same data, so that their figures may be compared cell by
// cell; otherwise an error naming the first field that differs, as
// "plan.keys: [1 16 64] against [1 16]". What may differ: the seed (the
// order), the retries, whether gbench loaded the data, the plan's name
// and title, and everything outside the plan (servers, settings,
// versions: what a comparison is for). The scripts are compared when both
// results have them (gbench-matrix/1 results do not).
func SamePlan(a, b *Plan) error {
	d := &differ{}
	d.same("plan.paths", len(a.Paths), len(b.Paths))
	if d.err == nil {
		for i := range a.Paths {
			d.path(fmt.Sprintf("plan.paths[%d]", i), &a.Paths[i], &b.Paths[i])
		}
	}
	d.same("plan.mixes", len(a.Mixes), len(b.Mixes))
	if d.err == nil {
		for i := range a.Mixes {
			d.same(fmt.Sprintf("plan.mixes[%d]", i), fmt.Sprint(a.Mixes[i]), fmt.Sprint(b.Mixes[i]))
		}
	}
	d.list("plan.keys", a.Keys, b.Keys)
	d.list("plan.connections", a.Connections, b.Connections)
	d.same("plan.rates", fmt.Sprint(a.RateList()), fmt.Sprint(b.RateList()))
	d.same("plan.repeats", a.Repeats, b.Repeats)
	d.same("plan.duration_s", a.DurationS, b.DurationS)
	d.same("plan.requests", a.Requests, b.Requests)
	d.same("plan.interval_s", a.IntervalS, b.IntervalS)
	d.same("plan.threads", a.Threads, b.Threads)
	d.same("plan.random_keys", a.RandomKeys, b.RandomKeys)
	d.same("plan.hot_rows", a.HotRows, b.HotRows)
	d.same("plan.warmup_s", a.WarmupS, b.WarmupS)
	d.same("plan.items", a.Items, b.Items)
	d.same("plan.value_size", a.ValueSize, b.ValueSize)
	d.same("plan.kv_keys", a.KVKeys, b.KVKeys)
	d.same("plan.sessions", a.Sessions, b.Sessions)
	return d.err
}

type differ struct{ err error }

func (d *differ) same(field string, a, b any) {
	if d.err == nil && a != b {
		d.err = fmt.Errorf("%s: %v against %v", field, a, b)
	}
}

func (d *differ) list(field string, a, b []int) {
	if d.err == nil && !slices.Equal(a, b) {
		d.err = fmt.Errorf("%s: %v against %v", field, a, b)
	}
}

func (d *differ) path(field string, a, b *PlanPath) {
	d.same(field+".name", a.Name, b.Name)
	d.same(field+".mode", a.Mode, b.Mode)
	d.same(field+".server", a.Server, b.Server)
	if len(a.Scripts) == 0 || len(b.Scripts) == 0 {
		return // a result of gbench-matrix/1
	}
	d.same(field+".contract", a.Contract, b.Contract)
	d.same(field+".reset", a.Reset, b.Reset)
	d.same(field+".cached", a.Cached, b.Cached)
	d.same(field+".scripts", len(a.Scripts), len(b.Scripts))
	if d.err != nil {
		return
	}
	for i := range a.Scripts {
		f := fmt.Sprintf("%s.scripts[%d]", field, i)
		d.same(f+".name", a.Scripts[i].Name, b.Scripts[i].Name)
		if d.err == nil && a.Scripts[i].Text != b.Scripts[i].Text {
			d.err = fmt.Errorf("%s.text: the script %q differs", f, a.Scripts[i].Name)
		}
	}
}
