package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/result/gate"
	"github.com/gbench/gbench/run/series"
	"github.com/spf13/pflag"
)

// defaultCurveClients are the client counts of the pgbench method.
var defaultCurveClients = []int{1, 4, 16, 64, 128}

// curveOptions are the options of gbench curve.
type curveOptions struct {
	seriesOptions
	clients []int
	rates   []float64
	plateau float64 // fraction
	// thresholds are --threshold's lists, checked on each point.
	thresholds []string
}

// runCurve is "gbench curve [OPTION]... -- GBENCH-ARGS": the command line
// over client counts (closed loop) or target rates (open loop), each
// point repeated, in a shuffled order, after a warm-up. It prints each
// point's medians and ranges and, for a closed loop, the knee and the
// working point; the JSON result (-o) is written after every run. Exit
// status: 0 when every run succeeded, 1 for a bad command line or a
// failed set-up, 2 when a run failed or Ctrl-C stopped the series.
func runCurve(env *Env, args []string) int {
	o := &curveOptions{seriesOptions: seriesOptions{repeats: 3, warmup: 2, out: "curve.json"}, plateau: series.DefaultPlateau}
	line, code, done := openSeries(env, "curve", args, &o.seriesOptions, func(fs *pflag.FlagSet) {
		fs.Var(&matrixInts{p: &o.clients, name: "--clients"}, "clients", "closed loop over these client counts (default 1,4,16,64,128)")
		fs.Var(&rateList{p: &o.rates, name: "--rates"}, "rates", "open loop over these target rates in tps, with the command line's -c clients")
		fs.Var(&percentValue{p: &o.plateau, name: "--plateau"}, "plateau", "a point within this percentage of the highest throughput is on the plateau")
		o.define(fs, "runs of each point")
		fs.StringArrayVar(&o.thresholds, "threshold", nil, "check each point's medians against LIST, as a run's --threshold (no SCRIPT: terms); exit 3 when a point breaches one")
	}, curveUsage)
	if done {
		return code
	}
	if len(o.clients) > 0 && len(o.rates) > 0 {
		return fail(env, usagef("--clients and --rates do not mix: a curve varies the clients (closed loop) or the rate (open loop)"))
	}
	forbid := map[string]string{"rate": "--rate in the command line: give the rates to try with --rates for an open-loop curve"}
	if len(o.rates) == 0 {
		forbid["client"] = "-c in the command line: give the client counts with --clients"
		if len(o.clients) == 0 {
			o.clients = defaultCurveClients
		}
	}
	gates, err := curveGates(o.thresholds)
	if err != nil {
		return fail(env, err)
	}
	s, err := parseBenchLine(env, "curve", line, forbid)
	if err != nil {
		return fail(env, err)
	}
	loads := o.loads(s.o.clients)
	if err := s.maxFiles(slices.MaxFunc(loads, func(a, b series.Load) int { return a.Clients - b.Clients }).Clients); err != nil {
		return fail(env, err)
	}
	ctx, hard, stop, err := startSeries(env, &o.seriesOptions)
	if err != nil {
		return fail(env, err)
	}
	defer stop()
	if code := s.setUp(ctx, env, "curve"); code != exitOK {
		return code
	}
	res := newSeriesResult(env, series.KindCurve, &o.seriesOptions, s.duration)
	res.Plan.Loads, res.Plan.Commands[""] = loads, redactArgs(append([]string{"gbench"}, s.args...))
	res.Context = s.runCtx
	r := seriesRunner(env, s, &o.seriesOptions, "curve", hard)
	fmt.Fprintf(env.Stderr, "gbench curve: %d points × %d repeats of %v, seed %d (--seed %d replays this order)\n",
		len(loads), o.repeats, s.duration, o.seed, o.seed)
	save := saver(env, res, o.out)
	if w, ok := r.WarmUp(ctx, loads[len(loads)-1], o.seed); ok {
		res.Warmup = append(res.Warmup, w)
	}
	err = r.Each(ctx, res, series.Order(len(loads), o.repeats, o.seed), save)
	res.Curve = series.NewCurve(res.Runs, loads, o.plateau)
	if gates != nil {
		res.Thresholds = series.CheckPoints(res.Runs, loads, gates)
	}
	if werr := report.SeriesText(env.Stdout, res); werr != nil && err == nil {
		err = werr
	}
	breached := writePointGates(env, res.Thresholds)
	code = finishSeries(env, res, o.out, err)
	if code == exitOK && breached {
		return exitThreshold
	}
	return code
}

// curveGates reads gbench curve's --threshold lists; nil without.
func curveGates(lists []string) ([]gate.Threshold, error) {
	var out []gate.Threshold
	for _, l := range lists {
		ts, err := gate.Parse(l)
		if err != nil {
			return nil, usagef("%v", err)
		}
		for _, t := range ts {
			if t.Script != "" {
				return nil, usagef("invalid threshold %q: a curve keeps no per-script figures; give the term without \"%s:\"", t.String(), t.Script)
			}
			if t.Figure == gate.Stddev {
				return nil, usagef("invalid threshold %q: a curve's runs keep no latency stddev", t.String())
			}
		}
		out = append(out, ts...)
	}
	return out, nil
}

// writePointGates prints each point's verdicts after the curve and says
// whether any was breached.
func writePointGates(env *Env, ps []series.PointGates) bool {
	breached := false
	for _, p := range ps {
		fmt.Fprintf(env.Stdout, "thresholds at %s:\n", p.Load)
		if err := report.WriteThresholdLines(env.Stdout, p.Verdicts); err != nil {
			fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		}
		breached = breached || gate.Breached(p.Verdicts)
	}
	return breached
}

// loads are the curve's points, in plan order: increasing clients or
// rates.
func (o *curveOptions) loads(clients int) []series.Load {
	var out []series.Load
	if len(o.rates) > 0 {
		rates := slices.Clone(o.rates)
		slices.Sort(rates)
		for _, r := range slices.Compact(rates) {
			out = append(out, series.Load{Clients: clients, Rate: r})
		}
		return out
	}
	cs := slices.Clone(o.clients)
	slices.Sort(cs)
	for _, c := range slices.Compact(cs) {
		out = append(out, series.Load{Clients: c})
	}
	return out
}

func curveUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `gbench curve runs a gbench command line over a list of client counts (closed
loop, the tps-against-clients curve) or of target rates (open loop, latency
against offered load). Each point is repeated, in a shuffled order, after a
warm-up; it prints each point's median tps and latency percentiles with their
ranges, and for a closed loop the knee and the 60–70%% working point.

Usage:
  gbench curve [OPTION]... -- GBENCH-ARGS

GBENCH-ARGS is any gbench command line (scripts, connection, -j, -M, -T for
the length of each run, default 5 s), without -c under --clients and without
-R. Options:
%s
Each run records what the servers did during it (WAL written, checkpoints,
autovacuum); "gbench report FILE" draws the curve (SVG and one HTML page).

Exit status: 0 when every run succeeded, 1 for a bad command line or a failed
set-up, 2 when a run failed or Ctrl-C stopped the series, 3 when a point
breached a --threshold.

Example:
  gbench curve --clients 1,4,16,64,128 -- -n -f read.sql -j 2 -T 10 mydb
  gbench curve --rates 100,200,400,800 -- -n -f read.sql -c 16 -j 2 -T 10 mydb
`, fs.FlagUsages())
}
