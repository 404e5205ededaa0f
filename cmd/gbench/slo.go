package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/run/series"
	"github.com/spf13/pflag"
)

// sloOptions are the options of gbench slo.
type sloOptions struct {
	seriesOptions
	objective  string
	minRate    float64
	maxRate    float64
	resolution float64
	maxRuns    int
	// failBelow is --fail-below's rate: -1 without it, 0 for "met nowhere".
	failBelow float64
}

// runSLO is "gbench slo --slo OBJECTIVE [OPTION]... -- GBENCH-ARGS": it
// finds the highest --rate at which the command line meets the objective
// (series.Searcher), confirms it with repeats and prints every probe.
// Exit status: 0 when the search finished (whatever its outcome: found,
// met everywhere, met nowhere), 1 for a bad command line or a failed
// set-up, 2 when a run failed or Ctrl-C stopped the search, 3 under
// --fail-below when the objective is met nowhere or below its rate.
func runSLO(env *Env, args []string) int {
	o := &sloOptions{seriesOptions: seriesOptions{repeats: 3, warmup: 2, out: "slo.json"},
		resolution: series.DefaultResolution, maxRuns: series.DefaultMaxRuns, failBelow: -1}
	line, code, done := openSeries(env, "slo", args, &o.seriesOptions, func(fs *pflag.FlagSet) {
		fs.StringVar(&o.objective, "slo", "", "the objective: a latency percentile bound like \"p99<=5ms\", optionally \",failures<=1%\" (failed and skipped transactions)")
		fs.Var(&oneRate{p: &o.minRate, name: "--min-rate"}, "min-rate", "bottom of the range in tps (default: 10% of the top)")
		fs.Var(&oneRate{p: &o.maxRate, name: "--max-rate"}, "max-rate", "top of the range in tps (default: the clients' closed-loop throughput, measured first)")
		fs.Var(&percentValue{p: &o.resolution, name: "--resolution"}, "resolution", "stop bisecting when the gap is below this percentage of the rate")
		fs.Var(&intValue{p: &o.maxRuns, name: "--max-runs", min: 2, max: maxInt}, "max-runs", "at most this many runs, the capacity probe and confirmations included")
		o.define(fs, "runs that confirm the answer: their median must meet the objective")
		fs.Var(&failBelowValue{&o.failBelow}, "fail-below", "exit with status 3 when the objective is met nowhere or, with =TPS, when the rate found is below TPS")
		fs.Lookup("fail-below").NoOptDefVal = "0"
	}, sloUsage)
	if done {
		return code
	}
	if o.objective == "" {
		return fail(env, &usageError{msg: "gbench slo needs an objective, like --slo 'p99<=5ms'", hint: true})
	}
	obj, err := series.ParseObjective(o.objective)
	if err != nil {
		return fail(env, usagef("%v", err))
	}
	if o.minRate > 0 && o.maxRate > 0 && o.minRate >= o.maxRate {
		return fail(env, usagef("--min-rate (%g) must be below --max-rate (%g)", o.minRate, o.maxRate))
	}
	s, err := parseBenchLine(env, "slo", line, map[string]string{"rate": "--rate in the command line: gbench slo chooses the rates (bound them with --min-rate and --max-rate)"})
	if err != nil {
		return fail(env, err)
	}
	if err := s.maxFiles(s.o.clients); err != nil {
		return fail(env, err)
	}
	ctx, hard, stop, err := startSeries(env, &o.seriesOptions)
	if err != nil {
		return fail(env, err)
	}
	defer stop()
	if code := s.setUp(ctx, env, "slo"); code != exitOK {
		return code
	}
	res := newSeriesResult(env, series.KindSLO, &o.seriesOptions, s.duration)
	res.Plan.Commands[""] = redactArgs(append([]string{"gbench"}, s.args...))
	res.Plan.Loads = []series.Load{}
	res.Context = s.runCtx
	r := seriesRunner(env, s, &o.seriesOptions, "slo", hard)
	save := saver(env, res, o.out)
	fmt.Fprintf(env.Stderr, "gbench slo: %s with %d clients, runs of %v, seed %d\n", obj.Text, s.o.clients, s.duration, o.seed)
	if w, ok := r.WarmUp(ctx, series.Load{Clients: s.o.clients}, o.seed); ok {
		res.Warmup = append(res.Warmup, w)
	}
	var saveErr error
	searcher := &series.Searcher{
		Objective: obj, Clients: s.o.clients, Low: o.minRate, High: o.maxRate,
		Resolution: o.resolution, Repeats: o.repeats, MaxRuns: o.maxRuns,
		Measure: func(ctx context.Context, rate float64, stage string) series.Run {
			return measureProbe(ctx, r, res, series.Load{Clients: s.o.clients, Rate: rate}, stage, save, &saveErr)
		},
	}
	res.SLO = searcher.Search(ctx)
	res.Interrupted = res.Interrupted || ctx.Err() != nil
	gateNote := sloGate(res.SLO, o.failBelow)
	if werr := report.SeriesText(env.Stdout, res); werr != nil && saveErr == nil {
		saveErr = werr
	}
	code = finishSeries(env, res, o.out, saveErr)
	if code == exitOK && gateNote != "" {
		fmt.Fprintf(env.Stderr, "gbench slo: %s (--fail-below)\n", gateNote)
		return exitThreshold
	}
	return code
}

// sloGate records --fail-below in the search's record and says why the
// search fails it; "" when it passes or there is no --fail-below. An
// interrupted search is judged by its exit status 2, not here.
func sloGate(slo *series.SLO, failBelow float64) string {
	if failBelow < 0 || slo.Outcome == series.OutcomeInterrupted {
		return ""
	}
	slo.FailBelowTPS = &failBelow
	var note string
	switch {
	case slo.Outcome == series.OutcomeNowhere:
		note = "the objective is met at no rate tried"
	case slo.RateTPS < failBelow:
		note = fmt.Sprintf("the objective holds up to %g tps, below %g tps", slo.RateTPS, failBelow)
	default:
		return ""
	}
	slo.ExitStatus = exitThreshold
	return note
}

// failBelowValue is --fail-below's rate: 0 (bare) or a rate in tps.
type failBelowValue struct{ p *float64 }

func (v *failBelowValue) Set(s string) error {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(r >= 0) || r > 1e9 {
		return optErrf("invalid value \"%s\" for option --fail-below: expected a rate in tps", s)
	}
	*v.p = r
	return nil
}

func (v *failBelowValue) String() string { return "" }
func (v *failBelowValue) Type() string   { return "TPS" }

// measureProbe measures one probe of the search, records it and saves the
// result; a save error is kept in saveErr and stops the search (the run
// is then returned as failed).
func measureProbe(ctx context.Context, r *series.Runner, res *series.Result, l series.Load, stage string, save func() error, saveErr *error) series.Run {
	seed := res.Plan.Seed + uint64(len(res.Runs))
	run := r.Measure(ctx, l, seed)
	run.Order = len(res.Runs)
	for i := range res.Runs {
		if res.Runs[i].Load == l {
			run.Repeat = max(run.Repeat, res.Runs[i].Repeat)
		}
	}
	run.Repeat++
	res.Runs = append(res.Runs, run)
	if !containsLoad(res.Plan.Loads, l) {
		res.Plan.Loads = append(res.Plan.Loads, l)
	}
	what := "closed loop"
	if l.Open() {
		what = fmt.Sprintf("rate %g", l.Rate)
	}
	fmt.Fprintf(r.Progress, "gbench slo: [%d] %s %s: %s\n", len(res.Runs), stage, what, series.Line(&run))
	if run.Interrupted {
		res.Interrupted = true
	}
	if err := save(); err != nil && *saveErr == nil {
		*saveErr = err
		run.Error = err.Error()
	}
	return run
}

func containsLoad(ls []series.Load, l series.Load) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

func sloUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `gbench slo finds the highest target rate (--rate, open loop) at which a gbench
command line meets a latency objective, like "p99 stays under 5 ms", optionally
with a ceiling on failed transactions. It measures the clients' closed-loop
throughput first (the top of the range, unless --max-rate), probes the top and
the bottom, bisects, and confirms the answer with repeats. Every probe's figures
are printed and kept in the JSON result as the evidence.

Usage:
  gbench slo --slo OBJECTIVE [OPTION]... -- GBENCH-ARGS

GBENCH-ARGS is any gbench command line (scripts, connection, -c clients, -j,
-T for the length of each run, default 5 s), without -R. Options:
%s
Outcomes: "found" (the highest confirmed rate, and the lowest seen failing
above it), "met-everywhere" (the objective holds at the top of the range: the
ceiling is the throughput itself, or above --max-rate), "met-nowhere" (it
fails, confirmed, at the bottom of the range).

Exit status: 0 when the search finished, whatever its outcome (unless
--fail-below); 1 for a bad command line or a failed set-up; 2 when a run
failed or Ctrl-C stopped it; 3 under --fail-below when the objective is met
nowhere, or below the rate given.

Example:
  gbench slo --slo 'p99<=5ms,failures<=0.1%%' -- -n -f read.sql -c 16 -j 2 -T 10 mydb
`, fs.FlagUsages())
}
