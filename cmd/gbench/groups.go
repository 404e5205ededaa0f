package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/output/report"
)

// Client groups: several pgbench command lines run as one. A command line
// with "--group NAME" splits at each of them: what comes before the first
// is common to all groups, and each group's options follow its name (its
// scripts, -c, -j, --rate, -L, --threshold, even its own server). Each
// group is validated and run as a command line of its own (common options
// then the group's), all at once, and reported one after the other,
// then the totals; their outputs (-P, -l, --hdr-log, --metrics-addr and
// one --json result) are in groups_out.go. "--stage rate=N,clients=N,time=S"
// (rate=FROM..TO ramps within the stage; repeatable) instead
// runs the command line once per stage, one after the other, with the
// stage's -R, -c and -T, each reported on its own. Without --group or
// --stage nothing changes: pgbench's command lines keep their meaning.

// clientGroup is one --group (or --stage): its name and its whole
// command line.
type clientGroup struct {
	kind string // "group" or "stage"
	name string
	args []string
	// run is what the group shares with the others (nil for a stage).
	run *groupRun
	// rateTo is where a stage's rate ramp ends (rate=FROM..TO); 0 for a
	// constant rate.
	rateTo float64
	o      *options
	b      *benchSetup
	res    *engine.Result
	err    error
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
		case isGroup && (name == "" || strings.HasPrefix(name, "-") || !groupNameRE.MatchString(name)):
			return nil, usagef("invalid group name \"%s\": expected a name of letters, digits, \"_\", \"-\" and \".\" after --group, like --group readers (it names the group's log files)", name)
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
			return nil, usagef("--stage and --group cannot be used together: stages run one command line after another, groups several at once, and a group's stages would need a schedule per group; run the stages of each group as a separate gbench")
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
		if from, to, isRamp := strings.Cut(value, ".."); isRamp && key == "rate" {
			a, errA := strconv.ParseFloat(strings.TrimSpace(from), 64)
			b, errB := strconv.ParseFloat(strings.TrimSpace(to), 64)
			if errA != nil || errB != nil || !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
				return nil, usagef("invalid stage \"%s\": a ramp is rate=FROM..TO with both rates above 0 tps, like rate=100..1000", spec)
			}
			value, st.rateTo = strings.TrimSpace(from), b
		}
		st.args = append(st.args, flag, value)
	}
	st.name += " (" + strings.TrimSpace(spec) + ")"
	if !hasTime {
		return nil, usagef("invalid stage \"%s\": a stage needs its length, like time=10", spec)
	}
	return st, nil
}

// groupForbidden are options groups or stages do not take, with why.
var groupForbidden = []struct {
	name, why    string
	group, stage bool // refused in a group, in a stage
}{
	{"metrics-addr", "--metrics-addr serves the metrics of runs that run together, not one after another", false, true},
	{"worker", "--worker splits one run over several machines", true, true},
	{"threshold-abort", "--threshold-abort stops one run", true, true},
	{"initialize", "-i initializes", true, true},
	{"wait-events", "--wait-events samples one run's server", true, true},
}

// groupNameRE is what a group's name may hold: it goes into file names.
var groupNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// fileName is the group's (or stage's) part of its files' names: its
// name, or "stageK".
func (g *clientGroup) fileName() string {
	if g.kind == "stage" {
		return "stage" + strings.SplitN(g.name, " ", 2)[0]
	}
	return g.name
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
			if fs.Changed(f.name) && (g.kind == "group" && f.group || g.kind == "stage" && f.stage) {
				return fail(env, usagef("%s \"%s\": %s; it cannot be used with --%s", g.kind, g.name, f.why, g.kind))
			}
		}
		if g.kind == "stage" {
			o.jsonOut = groupJSONPath(o.jsonOut, g)
		} else {
			g.run = &groupRun{name: g.name}
			o.group = g.run
		}
		if o.log {
			// pgbench's log files, one set per group: PREFIX.NAME.PID and
			// PREFIX.NAME.PID.THREAD, each in pgbench's format.
			o.logPrefix = cmp.Or(o.logPrefix, report.DefaultLogPrefix) + "." + g.fileName()
		}
		o.hdrLog = groupJSONPath(o.hdrLog, g)
		if g.b, err = prepareBench(env, o, fs); err != nil {
			return fail(env, groupError(g.kind+" \""+g.name+"\"", err))
		}
		if g.rateTo > 0 && g.rateTo != g.b.cfg.Rate {
			if o.duration <= 0 {
				return fail(env, usagef("%s \"%s\": a rate ramp needs the stage's length (time=SECONDS), not -t", g.kind, g.name))
			}
			g.b.cfg.RateEnd = g.rateTo
			if err := g.b.cfg.Validate(); err != nil {
				return fail(env, groupError(g.kind+" \""+g.name+"\"", err))
			}
		}
		g.o = o
	}
	if groups[0].kind == "group" {
		if err := checkGroupOutputs(groups); err != nil {
			return fail(env, err)
		}
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
	srv, err := serveGroupMetrics(env, groups)
	if err != nil {
		return fail(env, err)
	}
	ticks := newGroupTicks(env, groups)
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Go(func() {
			g.res, g.err = g.b.runGroup(ctx, env, g.o.warmup)
			ticks.done(g.run)
		})
	}
	wg.Wait()
	code := finishGroups(env, groups)
	if srv != nil {
		for _, g := range groups {
			if g.res != nil {
				g.b.metrics.Finish(g.res)
			}
		}
		groups[0].b.closeMetrics(env, srv, nil)
	}
	return code
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
	if err := writeGroupsJSON(env, groups); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: --json: %v\n", err)
		code = worse(code, exitRun)
	}
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
