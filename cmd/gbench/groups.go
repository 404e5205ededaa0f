package main

import (
	"context"
	"fmt"
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
// then the totals. Without --group nothing changes: pgbench's command
// lines keep their meaning.

// clientGroup is one --group: its name and its whole command line.
type clientGroup struct {
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
	var groups []*clientGroup
	for i := 0; i < len(args); i++ {
		a := args[i]
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
			groups = append(groups, &clientGroup{name: name})
		case len(groups) == 0:
			common = append(common, a)
		default:
			g := groups[len(groups)-1]
			g.args = append(g.args, a)
		}
	}
	for _, g := range groups {
		g.args = append(append([]string(nil), common...), g.args...)
	}
	return groups, nil
}

// groupForbidden are options a group run does not take yet, with why.
var groupForbidden = []struct{ name, why string }{
	{"json", "--json writes one run's result"},
	{"log", "-l writes one run's logs"},
	{"hdr-log", "--hdr-log writes one run's histograms"},
	{"metrics-addr", "--metrics-addr serves one run's metrics"},
	{"progress", "-P prints one run's progress"},
	{"worker", "--worker splits one run over several machines"},
	{"threshold-abort", "--threshold-abort stops one run"},
	{"initialize", "-i initializes"},
}

// runGroups runs the groups of a command line together.
func runGroups(env *Env, groups []*clientGroup) int {
	for _, g := range groups {
		o, fs, rest, err := parseArgs(env, g.args)
		if err == nil {
			err = checkCommandLine(o, fs, rest)
		}
		if err != nil {
			return fail(env, groupError(g.name, err))
		}
		for _, f := range groupForbidden {
			if fs.Changed(f.name) {
				return fail(env, usagef("group \"%s\": %s; it cannot be used with --group yet", g.name, f.why))
			}
		}
		if g.b, err = prepareBench(env, o, fs); err != nil {
			return fail(env, groupError(g.name, err))
		}
		g.o = o
	}
	ctx, hard, stop := signalContext(env)
	defer stop()
	for _, g := range groups {
		g.b.cfg.HardStop = hard
		if g.b.cfg.Program.HasSQL {
			fmt.Fprintf(env.Stdout, "group %s: ", g.name)
			if code := g.b.prepareServer(ctx, env, g.o); code != exitOK {
				return code
			}
		}
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
func groupError(name string, err error) error {
	if ue, ok := err.(*usageError); ok {
		c := *ue
		c.msg = fmt.Sprintf("group \"%s\": %s", name, ue.msg)
		return &c
	}
	return fmt.Errorf("group \"%s\": %w", name, err)
}

// finishGroups prints each group's summary, then the totals, and returns
// the worst exit status: 2 over 3 over 0.
func finishGroups(env *Env, groups []*clientGroup) int {
	code := exitOK
	var cnt, failed, skipped int64
	var tps float64
	for _, g := range groups {
		fmt.Fprintf(env.Stdout, "group %s:\n", g.name)
		c := exitRun
		if g.err != nil {
			fmt.Fprintf(env.Stderr, "gbench: error: group \"%s\": %v\n", g.name, g.err)
		} else {
			c = g.b.finish(env, g.o, g.res)
			t := g.res.Stats.Total
			cnt, failed, skipped = cnt+t.Cnt, failed+t.Failures(), skipped+t.Skipped
			tps += float64(t.Cnt) / g.res.Bench.Seconds()
		}
		code = worse(code, c)
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
