package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/gbench/gbench/engine"
)

// Client groups: several pgbench command lines run as one. A command line
// with "--group NAME" splits at each of them: what comes before the first
// is common to all groups, and each group's options follow its name (its
// scripts, -c, -j, --rate, -L, --threshold, even its own server). Each
// group is validated and run as a command line of its own (common options
// then the group's), all at once, and reported one after the other,
// then the totals. "--stage rate=N,clients=N,time=S" (repeatable) instead
// runs the command line once per stage, one after the other, with the
// stage's -R, -c and -T, each reported on its own. Without --group or
// --stage nothing changes: pgbench's command lines keep their meaning.

// clientGroup is one --group (or --stage): its name and its whole
// command line.
type clientGroup struct {
	kind string // "group" or "stage"
	name string
	args []string
	o    *options
	b    *benchSetup
	res  *engine.Result
	err  error
}

// splitGroups splits args at each "--group NAME" ("--group=NAME"); nil
// when there is none.
func splitGroups(args []string) ([]*clientGroup, error) {
	var common []string
	var groups, stages []*clientGroup
	for i := 0; i < len(args); i++ {
		a := args[i]
		if spec, isStage := strings.CutPrefix(a, "--stage="); isStage || a == "--stage" {
			if !isStage {
				if i+1 >= len(args) {
					return nil, getoptf("option '--stage' requires an argument")
				}
				i++
				spec = args[i]
			}
			st, err := parseStage(spec, len(stages)+1)
			if err != nil {
				return nil, err
			}
			stages = append(stages, st)
			continue
		}
		name, isGroup := strings.CutPrefix(a, "--group=")
		if a == "--group" {
			if i+1 >= len(args) {
				return nil, getoptf("option '--group' requires an argument")
			}
			i++
			name, isGroup = args[i], true
		}
		switch {
		case isGroup && (name == "" || strings.HasPrefix(name, "-")):
			return nil, usagef("invalid group name \"%s\": expected a name after --group, like --group readers", name)
		case isGroup:
			for _, g := range groups {
				if g.name == name {
					return nil, usagef("group \"%s\" is given twice", name)
				}
			}
			groups = append(groups, &clientGroup{kind: "group", name: name})
		case len(groups) == 0:
			common = append(common, a)
		default:
			g := groups[len(groups)-1]
			g.args = append(g.args, a)
		}
	}
	if len(stages) > 0 {
		if len(groups) > 0 {
			return nil, usagef("--stage and --group cannot be used together yet")
		}
		for _, st := range stages {
			st.args = append(append([]string(nil), common...), st.args...)
		}
		return stages, nil
	}
	for _, g := range groups {
		g.args = append(append([]string(nil), common...), g.args...)
	}
	return groups, nil
}

// parseStage reads a --stage: "rate=N", "clients=N" and "time=SECONDS",
// comma-separated, time required; they become -R, -c and -T after the
// common options.
func parseStage(spec string, n int) (*clientGroup, error) {
	st := &clientGroup{kind: "stage", name: strconv.Itoa(n)}
	hasTime := false
	for _, item := range strings.Split(spec, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		flag := map[string]string{"rate": "-R", "clients": "-c", "time": "-T"}[key]
		if !ok || flag == "" || value == "" {
			return nil, usagef("invalid stage \"%s\": expected rate=N, clients=N and time=SECONDS, like \"rate=500,time=10\"", spec)
		}
		hasTime = hasTime || key == "time"
		st.args = append(st.args, flag, value)
	}
	st.name += " (" + strings.TrimSpace(spec) + ")"
	if !hasTime {
		return nil, usagef("invalid stage \"%s\": a stage needs its length, like time=10", spec)
	}
	return st, nil
}

// groupForbidden are options a group run does not take yet, with why.
var groupForbidden = []struct{ name, why string }{
	{"log", "-l writes one run's logs"},
	{"hdr-log", "--hdr-log writes one run's histograms"},
	{"metrics-addr", "--metrics-addr serves one run's metrics"},
	{"progress", "-P prints one run's progress"}, // stages take it: they run one at a time
	{"worker", "--worker splits one run over several machines"},
	{"threshold-abort", "--threshold-abort stops one run"},
	{"initialize", "-i initializes"},
}

// runGroups runs the groups of a command line together, or its stages
// one after the other.
func runGroups(env *Env, groups []*clientGroup) int {
	for _, g := range groups {
		o, fs, rest, err := parseArgs(env, g.args)
		if err == nil {
			err = checkCommandLine(o, fs, rest)
		}
		if err != nil {
			return fail(env, groupError(g.kind+" \""+g.name+"\"", err))
		}
		for _, f := range groupForbidden {
			if fs.Changed(f.name) && !(f.name == "progress" && g.kind == "stage") {
				return fail(env, usagef("%s \"%s\": %s; it cannot be used with --%s yet", g.kind, g.name, f.why, g.kind))
			}
		}
		o.jsonOut = groupJSONPath(o.jsonOut, g)
		if g.b, err = prepareBench(env, o, fs); err != nil {
			return fail(env, groupError(g.kind+" \""+g.name+"\"", err))
		}
		g.o = o
	}
	ctx, hard, stop := signalContext(env)
	defer stop()
	stages := groups[0].kind == "stage"
	for i, g := range groups {
		g.b.cfg.HardStop = hard
		if g.b.cfg.Program.HasSQL && (!stages || i == 0) {
			if !stages {
				fmt.Fprintf(env.Stdout, "group %s: ", g.name)
			}
			if code := g.b.prepareServer(ctx, env, g.o); code != exitOK {
				return code
			}
		}
	}
	if stages {
		// One stage after the other; the warm-up, if any, before the first.
		for i, g := range groups {
			w := 0.0
			if i == 0 {
				w = g.o.warmup
			}
			if g.res, g.err = g.b.runGroup(ctx, env, w); ctx.Err() != nil {
				break
			}
		}
		return finishGroups(env, groups)
	}
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(func() { g.res, g.err = g.b.runGroup(ctx, env, g.o.warmup) })
	}
	wg.Wait()
	return finishGroups(env, groups)
}

// runGroup runs one group's warm-up and measured run.
func (b *benchSetup) runGroup(ctx context.Context, env *Env, warmup float64) (*engine.Result, error) {
	var ok bool
	if b.warmup, ok = b.warmUp(ctx, env, warmup); !ok {
		return nil, fmt.Errorf("the warm-up failed")
	}
	return engine.Run(ctx, b.cfg)
}

// groupError names the group in a command line error.
func groupError(what string, err error) error {
	if ue, ok := err.(*usageError); ok {
		c := *ue
		c.msg = fmt.Sprintf("%s: %s", what, ue.msg)
		return &c
	}
	return fmt.Errorf("%s: %w", what, err)
}

// finishGroups prints each group's summary, then the totals, and returns
// the worst exit status: 2 over 3 over 0.
func finishGroups(env *Env, groups []*clientGroup) int {
	code := exitOK
	var cnt, failed, skipped int64
	var tps float64
	for _, g := range groups {
		if g.res == nil && g.err == nil {
			continue // a stage that an interrupt kept from running
		}
		fmt.Fprintf(env.Stdout, "%s %s:\n", g.kind, g.name)
		c := exitRun
		if g.err != nil {
			fmt.Fprintf(env.Stderr, "gbench: error: %s \"%s\": %v\n", g.kind, g.name, g.err)
		} else {
			c = g.b.finish(env, g.o, g.res)
			t := g.res.Stats.Total
			cnt, failed, skipped = cnt+t.Cnt, failed+t.Failures(), skipped+t.Skipped
			tps += float64(t.Cnt) / g.res.Bench.Seconds()
		}
		code = worse(code, c)
	}
	if groups[0].kind == "stage" {
		fmt.Fprintf(env.Stdout, "all stages: %d transactions processed, %d failed, %d skipped\n", cnt, failed, skipped)
		return code
	}
	fmt.Fprintf(env.Stdout, "all groups: %d transactions processed, %d failed, %d skipped; tps = %f (sum of the groups)\n", cnt, failed, skipped, tps)
	return code
}

// worse is the more severe of two exit statuses.
func worse(a, b int) int {
	rank := map[int]int{exitOK: 0, exitThreshold: 1, exitRun: 2, exitUsage: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// groupJSONPath is where a group's or stage's --json result goes: FILE
// with the group's name (or "stageK") before its extension, so that
// out.json becomes out.readers.json; "-" stays standard output, where the
// results follow one another as gbench merge reads them.
func groupJSONPath(path string, g *clientGroup) string {
	if path == "" || path == "-" {
		return path
	}
	name := g.name
	if g.kind == "stage" {
		name = "stage" + strings.SplitN(g.name, " ", 2)[0]
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + name + ext
}
