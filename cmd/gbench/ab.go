package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/result/gate"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/run/series"
	"github.com/spf13/pflag"
)

// abOptions are the options of gbench ab.
type abOptions struct {
	seriesOptions
	setA, setB []pgsql.Setting
	metric     string
	noise      float64
	builds     abBuilds
	// thresholds are --threshold's lists, checked on each side's medians.
	thresholds []string
	// maxRegression is --max-regression, a fraction; -1 without it.
	maxRegression float64
}

// abSide is one side of an A/B series.
type abSide struct {
	name     string
	bench    *seriesBench
	settings []pgsql.Setting
	server   *pgsql.Settings // nil without settings
}

// runAB is "gbench ab [OPTION]... -- ARGS-A [--vs ARGS-B]": two command
// lines, or one command line under two sets of server settings (--set-a,
// --set-b, applied with ALTER SYSTEM and a reload before each run), run
// interleaved --repeats times each; it prints the medians, ranges, ratio
// and a verdict that calls no difference smaller than the noise. Exit
// status: 0 when every run succeeded (whatever the verdict), 1 for a bad
// command line or a failed set-up, 2 when a run failed or Ctrl-C stopped
// the series, 3 when a side breaches a --threshold or B regresses by more
// than --max-regression.
func runAB(env *Env, args []string) int {
	o := &abOptions{seriesOptions: seriesOptions{repeats: 5, warmup: 2, out: "ab.json"}, noise: series.DefaultNoise, maxRegression: -1}
	lines, code, done := openSeries(env, "ab", args, &o.seriesOptions, func(fs *pflag.FlagSet) {
		fs.Var(&settingList{p: &o.setA, name: "--set-a"}, "set-a", "server setting NAME=VALUE for the runs of A (repeatable), like postgres -c")
		fs.Var(&settingList{p: &o.setB, name: "--set-b"}, "set-b", "server setting NAME=VALUE for the runs of B (repeatable)")
		fs.StringVar(&o.builds.dirA, "build-a", "", "run A against a throwaway server of the PostgreSQL build in `DIR` (its bin directory)")
		fs.StringVar(&o.builds.dirB, "build-b", "", "run B against a throwaway server of the build in `DIR`")
		fs.Var(&intValue{p: &o.builds.initScale, name: "--init-scale", min: 1, max: maxInt}, "init-scale", "with --build-a/-b: run \"gbench -i -s N\" in each server first")
		fs.Var(durabilityValue{&o.builds.durabilityOff, &o.builds.durabilitySet}, "durability", "with --build-a/-b: "+durabilityUsage)
		fs.StringVar(&o.builds.setup, "setup", "", "with --build-a/-b: run the SQL in `FILE` in each server first (tables, data)")
		fs.StringVar(&o.metric, "metric", "", "what the verdict compares: tps, a latency percentile like p99, or max; without it, tps in closed loop and p99 under --rate")
		fs.Var(&percentValue{p: &o.noise, name: "--noise"}, "noise", "flag a noisy environment when one side's runs spread over more than this percentage of their median")
		o.define(fs, "runs of each side, interleaved; a verdict needs 3")
		fs.Var(&unsetPercent{percentValue{p: &o.maxRegression, name: "--max-regression"}}, "max-regression", "exit 3 when B's median is worse than A's by more than this percentage of A's on the metric (lower tps, higher latency)")
		fs.StringArrayVar(&o.thresholds, "threshold", nil, "check each side's medians against LIST, as a run's --threshold (no SCRIPT: terms); exit 3 when a side breaches one")
	}, abUsage)
	if done {
		return code
	}
	gates, err := curveGates(o.thresholds)
	if err != nil {
		return fail(env, err)
	}
	lineA, lineB := splitVs(lines)
	if err := o.builds.check([][]string{lineA, lineB}, env); err != nil {
		return fail(env, err)
	}
	sides, err := o.sides(env, lineA, lineB) // every check before any server starts
	if err != nil {
		return fail(env, err)
	}
	ctx, hard, stop, err := startSeries(env, &o.seriesOptions)
	if err != nil {
		return fail(env, err)
	}
	defer stop()
	if o.builds.active() {
		defer o.builds.stop(env)
		pointed, err := o.builds.start(ctx, env, [][]string{lineA, lineB}, o.maxClients(env, lineA, lineB))
		if err != nil {
			return fail(env, interrupted(err))
		}
		if sides, err = o.sides(env, pointed[0], pointed[1]); err != nil {
			return fail(env, err)
		}
	}
	for _, sd := range sides {
		if code := sd.bench.setUp(ctx, env, "ab"); code != exitOK {
			return code
		}
	}
	restore, err := checkSettings(ctx, sides)
	defer restore(env)
	if err != nil {
		return fail(env, err)
	}
	return o.run(ctx, env, sides, hard, gates)
}

// splitVs splits the command lines at "--vs"; without it both sides run
// the same one.
func splitVs(lines []string) (a, b []string) {
	if i := slices.Index(lines, "--vs"); i >= 0 {
		return lines[:i], lines[i+1:]
	}
	return lines, lines
}

// maxClients is the larger client count of the two command lines.
func (o *abOptions) maxClients(env *Env, lineA, lineB []string) int {
	n := 1
	for _, l := range [][]string{lineA, lineB} {
		if po, _, _, err := parseArgs(env, l); err == nil {
			n = max(n, po.clients)
		}
	}
	return n
}

// sides reads the two command lines and settings.
func (o *abOptions) sides(env *Env, lineA, lineB []string) ([]*abSide, error) {
	if len(lineA) == 0 {
		return nil, &usageError{msg: "no command line to compare: give it after \"--\", like \"gbench ab --set-a work_mem=4MB --set-b work_mem=64MB -- -f q.sql -T 10\"", hint: true}
	}
	if slices.Equal(lineA, lineB) && len(o.setA) == 0 && len(o.setB) == 0 && !o.builds.active() {
		fmt.Fprintf(env.Stderr, "gbench ab: A and B are the same command line with the same settings: an A/A series, which measures the noise\n")
	}
	var sides []*abSide
	for _, s := range []struct {
		name     string
		line     []string
		settings []pgsql.Setting
	}{{"A", lineA, o.setA}, {"B", lineB, o.setB}} {
		b, err := parseBenchLine(env, "ab", s.line, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		if len(s.settings) > 0 && !b.b.cfg.Program.HasSQL {
			return nil, usagef("--set-%s applies PostgreSQL settings, but command line %s runs no SQL", strings.ToLower(s.name), s.name)
		}
		if err := b.maxFiles(b.o.clients); err != nil {
			return nil, err
		}
		sides = append(sides, &abSide{name: s.name, bench: b, settings: s.settings})
	}
	if sides[0].bench.duration != sides[1].bench.duration {
		return nil, usagef("A runs for %v and B for %v: an A/B series compares runs of equal length", sides[0].bench.duration, sides[1].bench.duration)
	}
	if o.metric == "" {
		o.metric = "tps"
		if sides[0].bench.o.rate > 0 {
			o.metric = "p99"
		}
	}
	if o.metric != "tps" {
		if _, err := series.MetricPercentile(o.metric); err != nil {
			return nil, usagef("%v", err)
		}
	}
	return sides, nil
}

// run runs the interleaved series and prints the verdict.
func (o *abOptions) run(ctx context.Context, env *Env, sides []*abSide, hard <-chan struct{}, gates []gate.Threshold) int {
	a, b := sides[0], sides[1]
	res := newSeriesResult(env, series.KindAB, &o.seriesOptions, a.bench.duration)
	for _, sd := range sides {
		res.Plan.Commands[sd.name] = redactArgs(append([]string{"gbench"}, sd.bench.args...))
		res.Plan.Loads = append(res.Plan.Loads, series.Load{Clients: sd.bench.o.clients, Rate: sd.bench.o.rate, Variant: sd.name})
	}
	res.Context = a.bench.runCtx
	bySide := func(l series.Load) *abSide {
		if l.Variant == "B" {
			return b
		}
		return a
	}
	r := &series.Runner{
		Engine: func(l series.Load, d time.Duration, seed uint64) (*engine.Config, error) {
			return bySide(l).bench.engineConfig(l, d, seed, hard), nil
		},
		Prepare: func(ctx context.Context, l series.Load) error {
			sd := bySide(l)
			if sd.server != nil {
				if err := sd.server.Apply(ctx, sd.name); err != nil {
					return err
				}
			}
			return sd.bench.vacuum(ctx)
		},
		Probe:    func(l series.Load) *runenv.Probe { return bySide(l).bench.probe },
		Duration: a.bench.duration, Warmup: time.Duration(o.warmup * float64(time.Second)),
		Progress: env.Stderr, Name: "gbench ab",
	}
	fmt.Fprintf(env.Stderr, "gbench ab: %d interleaved runs of A and B, %v each, seed %d\n", o.repeats, a.bench.duration, o.seed)
	for _, l := range res.Plan.Loads {
		if w, ok := r.WarmUp(ctx, l, o.seed); ok {
			res.Warmup = append(res.Warmup, w)
		}
	}
	err := r.Each(ctx, res, series.Interleave(2, o.repeats, o.seed), saver(env, res, o.out))
	res.AB, _ = series.NewAB(res.Runs, o.side(a, res.Plan.Loads[0]), o.side(b, res.Plan.Loads[1]), o.metric, o.noise)
	if gates != nil {
		res.Thresholds = series.CheckPoints(res.Runs, res.Plan.Loads, gates)
	}
	if res.AB != nil && o.maxRegression >= 0 {
		res.AB.CheckRegression(o.maxRegression)
	}
	if werr := report.SeriesText(env.Stdout, res); werr != nil && err == nil {
		err = werr
	}
	breached := writePointGates(env, res.Thresholds)
	if ab := res.AB; ab != nil && ab.MaxRegression != nil {
		what := "no valid run on a side to compare"
		if ab.Regression != nil {
			what = fmt.Sprintf("B is %.1f%% worse than A on %s", 100**ab.Regression, ab.Metric)
			if *ab.Regression < 0 {
				what = fmt.Sprintf("B is %.1f%% better than A on %s", -100**ab.Regression, ab.Metric)
			}
		}
		verdict := "met"
		if ab.Regressed {
			verdict = "BREACHED"
		}
		fmt.Fprintf(env.Stdout, "max regression %g%%: %s (%s)\n", 100**ab.MaxRegression, verdict, what)
		breached = breached || ab.Regressed
	}
	code := finishSeries(env, res, o.out, err)
	if code == exitOK && breached {
		return exitThreshold
	}
	return code
}

// side describes one side for the analysis.
func (o *abOptions) side(sd *abSide, l series.Load) series.Side {
	s := series.Side{Load: l, Command: redactArgs(append([]string{"gbench"}, sd.bench.args...)), Context: sd.bench.runCtx}
	if o.builds.active() {
		s.Build = map[string]string{"A": o.builds.dirA, "B": o.builds.dirB}[sd.name]
	}
	for _, x := range sd.settings {
		s.Settings = append(s.Settings, x.Name+"="+x.Value)
	}
	return s
}

func abUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `gbench ab compares two configurations: two gbench command lines, or one
command line under two sets of PostgreSQL settings. The runs of A and B are
interleaved (in each round both sides run once, in a shuffled order), so that
a drift of the machine does not pass for a difference. It prints each side's
median and range, the ratio B/A and a verdict that calls no difference smaller
than the noise, and flags a noisy environment.

Usage:
  gbench ab [OPTION]... -- ARGS-A [--vs ARGS-B]

Without --vs both sides run ARGS-A. With --build-a and --build-b (the bin
directories of two PostgreSQL builds) each side runs against a throwaway
server of its build, prepared by --init-scale and --setup; the command lines
then name no server. --set-a and --set-b are applied before
each run of their side with ALTER SYSTEM SET and pg_reload_conf() (superuser),
and reset at the end; settings that need a restart are refused. Options:
%s
The verdict names the better side only when every run of it beats every run
of the other (the ranges do not overlap) and the medians differ by more than
the larger spread of the two sides; see docs/methodology.md.

Exit status: 0 when every run succeeded, whatever the verdict; 1 for a bad
command line or a failed set-up; 2 when a run failed or Ctrl-C stopped it;
3 when a side's medians breach a --threshold (checked on both sides), or
when B's median is worse than A's by more than --max-regression.

Examples:
  gbench ab --set-a work_mem=4MB --set-b work_mem=64MB -- -n -f report.sql -c 8 -T 10 mydb
  gbench ab --repeats 5 -- -n -f old.sql -c 8 -T 10 mydb --vs -n -f new.sql -c 8 -T 10 mydb
  gbench ab --build-a /usr/lib/postgresql/15/bin --build-b ~/pg-patched/bin --init-scale 10 -- -S -c 8 -T 10
`, fs.FlagUsages())
}
