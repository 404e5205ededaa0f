package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/output/metrics"
	"github.com/gbench/gbench/output/report"
)

// The outputs of a run of client groups (--group): each group writes its
// own -l files (PREFIX.NAME.PID...) and --hdr-log (FILE.NAME.EXT); its -P
// lines end with ", group NAME" and a line ending with ", all groups"
// follows each interval with the totals; --metrics-addr serves every
// group's metrics with the label group="NAME"; --json writes one result,
// the groups' totals with each group's own result in "groups".

// groupRun is what a group's run shares with the others.
type groupRun struct {
	name  string
	ticks *groupTicks
	// result is the group's --json result, kept for the combined one.
	result *report.Result
}

// progress prints the group's -P line and adds it to the totals.
func (g *groupRun) progress(cfg *report.RunConfig, p engine.Progress, ts bool, pct []float64) {
	g.ticks.add(g, cfg, p, ts, pct)
}

// groupTicks prints the groups' -P lines, and each interval's totals once
// every group still running has reported it (or a later one: a late
// report covers the intervals it missed). A group that has ended counts no
// more, so the totals of the intervals after its end are those of the
// groups still running.
type groupTicks struct {
	mu      sync.Mutex
	w       io.Writer
	cfg     report.RunConfig  // for the totals' line: the groups' clients, rate, limits
	last    map[*groupRun]int // the last interval each running group reported
	pending map[int]*groupTick
	ts      bool
	pct     []float64
}

// groupTick is one interval's totals so far.
type groupTick struct {
	txn               *stats.Txn
	elapsed, interval time.Duration
	wall              time.Time
	down              int
}

// newGroupTicks wires the groups that print -P lines to one groupTicks;
// nil when none does.
func newGroupTicks(env *Env, groups []*clientGroup) *groupTicks {
	t := &groupTicks{w: env.Stderr, last: map[*groupRun]int{}, pending: map[int]*groupTick{}, cfg: report.RunConfig{MaxTries: 1}}
	for _, g := range groups {
		if g.run == nil || g.o.progress == 0 {
			continue
		}
		g.run.ticks = t
		t.last[g.run] = 0
		c := report.RunConfigOf(g.b.cfg)
		t.cfg.Clients += c.Clients
		t.cfg.Rate += c.Rate
		t.cfg.LatencyLimit = max(t.cfg.LatencyLimit, c.LatencyLimit)
		if c.MaxTries != 1 {
			t.cfg.MaxTries = c.MaxTries
		}
		if t.cfg.Reconnect == nil {
			t.cfg.Reconnect = c.Reconnect
		}
	}
	if len(t.last) == 0 {
		return nil
	}
	return t
}

func (t *groupTicks) add(g *groupRun, cfg *report.RunConfig, p engine.Progress, ts bool, pct []float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.ts, t.pct = ts, pct
	t.line(cfg, p, "group "+g.name)
	k := t.pending[p.Index]
	if k == nil {
		k = &groupTick{txn: stats.NewTxn()}
		t.pending[p.Index] = k
	}
	if cfg.Rate > 0 {
		k.txn.Merge(p.Txn)
	} else {
		// A closed loop has no schedule: its zero lags are not lags.
		t := *p.Txn
		t.Lag = stats.Simple{}
		k.txn.Merge(&t)
	}
	k.elapsed, k.interval = max(k.elapsed, p.Elapsed), max(k.interval, p.Interval)
	if p.Wall.After(k.wall) {
		k.wall = p.Wall
	}
	k.down += p.Down
	t.last[g] = p.Index
	t.flush(false)
}

// done says the group's run has ended.
func (t *groupTicks) done(g *groupRun) {
	if t == nil || g == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.last[g]; !ok {
		return
	}
	delete(t.last, g)
	t.flush(len(t.last) == 0)
}

// flush prints, in order, the totals of every interval that each running
// group has reached; all of them when all is set.
func (t *groupTicks) flush(all bool) {
	reached := -1
	for _, i := range t.last {
		if reached < 0 || i < reached {
			reached = i
		}
	}
	var ready []int
	for i := range t.pending {
		if all || i <= reached {
			ready = append(ready, i)
		}
	}
	slices.Sort(ready)
	for _, i := range ready {
		k := t.pending[i]
		delete(t.pending, i)
		t.line(&t.cfg, engine.Progress{Index: i, Elapsed: k.elapsed, Interval: k.interval, Wall: k.wall, Txn: k.txn, Down: k.down}, "all groups")
	}
}

// line writes one -P line in pgbench's form with who it is about last.
func (t *groupTicks) line(cfg *report.RunConfig, p engine.Progress, who string) {
	var b bytes.Buffer
	if err := report.ProgressLine(&b, cfg, p, t.ts, t.pct); err != nil {
		fmt.Fprintf(t.w, "gbench: error: writing progress: %v\n", err)
		return
	}
	fmt.Fprintf(t.w, "%s, %s\n", strings.TrimSuffix(b.String(), "\n"), who)
}

// checkGroupOutputs checks that the outputs the groups share are given
// once for all: --json (one result), --metrics-addr (one server) and -P
// (one interval, so that the totals' intervals are the groups').
func checkGroupOutputs(groups []*clientGroup) error {
	first := groups[0].o
	for _, g := range groups[1:] {
		o := g.o
		switch {
		case o.jsonOut != first.jsonOut:
			return usagef("group \"%s\": --json writes one result for all groups: give it once, before the first --group", g.name)
		case o.metricsAddr != first.metricsAddr:
			return usagef("group \"%s\": --metrics-addr serves the metrics of all groups: give it once, before the first --group", g.name)
		case o.progress != first.progress:
			return usagef("group \"%s\": -P %d differs from group \"%s\"'s -P %d: the totals' line needs one interval; give -P once, before the first --group", g.name, o.progress, groups[0].name, first.progress)
		}
	}
	return nil
}

// serveGroupMetrics serves every group's metrics at --metrics-addr, each
// with the label group="NAME"; nil without the option.
func serveGroupMetrics(env *Env, groups []*clientGroup) (*metrics.Server, error) {
	addr := groups[0].o.metricsAddr
	if addr == "" {
		return nil, nil
	}
	var es []*metrics.Exporter
	var names []string
	for _, g := range groups {
		es, names = append(es, g.b.metrics), append(names, g.name)
	}
	srv, err := metrics.ServeGroups(addr, es, names)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stderr, "gbench: serving metrics at http://%s/metrics (label group: %s)\n", srv.Addr(), strings.Join(names, ", "))
	return srv, nil
}

// writeGroupsJSON writes the one --json result of the groups: their totals
// and each group's result. A group that failed has no result, and then
// the file is not written.
func writeGroupsJSON(env *Env, groups []*clientGroup) error {
	path := groups[0].o.jsonOut
	if path == "" {
		return nil
	}
	var gs []report.Group
	for _, g := range groups {
		if g.run.result == nil {
			return fmt.Errorf("group \"%s\" has no result: no combined result written", g.name)
		}
		gs = append(gs, report.Group{Name: g.name, Result: g.run.result})
	}
	r, err := report.CombineGroups(gs)
	if err != nil {
		return err
	}
	return writeTo(env.Stdout, path, r.Write)
}
