package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/run/series"
	"github.com/spf13/pflag"
)

// defaultSeriesDuration is each run's length when the command line has no
// -T.
const defaultSeriesDuration = 5 * time.Second

// seriesOptions are the options gbench curve, slo and ab share.
type seriesOptions struct {
	repeats int
	warmup  float64 // seconds
	seed    uint64
	out     string
	help    bool
}

// define declares the shared options next to their help.
func (o *seriesOptions) define(fs *pflag.FlagSet, repeatsHelp string) {
	fs.Var(&intValue{p: &o.repeats, name: "--repeats", min: 1, max: maxInt}, "repeats", repeatsHelp)
	fs.Var(&matrixSeconds{p: &o.warmup, name: "--warmup", min: 0}, "warmup", "seconds of warm-up before the first measured run; 0 for none")
	fs.Var(&seriesSeed{o: o}, "seed", "seed of the run order and the runs' random seeds (default: from the clock, recorded in the JSON)")
	fs.StringVarP(&o.out, "out", "o", o.out, "write the JSON result to `FILE` (after every run)")
	fs.BoolVar(&o.help, "help", false, "show this help, then exit")
}

// seriesSeed is --seed of a series command.
type seriesSeed struct{ o *seriesOptions }

func (v *seriesSeed) String() string { return "" }
func (v *seriesSeed) Type() string   { return "uint" }
func (v *seriesSeed) Set(s string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return optErrf("invalid value \"%s\" for option --seed: expected an unsigned integer", s)
	}
	v.o.seed = n
	return nil
}

// splitDash splits a series command line at its first "--": the
// command's own options, then the gbench command line it measures.
func splitDash(args []string) (own, bench []string, ok bool) {
	i := slices.Index(args, "--")
	if i < 0 {
		return args, nil, false
	}
	return args[:i], args[i+1:], true
}

// openSeries is the opening that ab, curve and slo share: it splits args
// at "--", defines the command's flags with define (which declares the
// shared ones with o.define, where they belong in the help), parses the
// command's own, answers --help with usage, and takes the seed from the
// clock unless --seed gave one. It returns the command line to measure;
// done means the command is over, with exit status code.
func openSeries(env *Env, name string, args []string, o *seriesOptions, define func(*pflag.FlagSet), usage func(io.Writer, *pflag.FlagSet)) (line []string, code int, done bool) {
	own, line, _ := splitDash(args)
	fs := pflag.NewFlagSet("gbench "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	define(fs)
	if err := parseSeriesFlags(fs, own); err != nil {
		return nil, fail(env, err), true
	}
	if o.help {
		usage(env.Stdout, fs)
		return nil, exitOK, true
	}
	if !fs.Changed("seed") {
		o.seed = uint64(env.Now().UnixNano())
	}
	return line, exitOK, false
}

// startSeries is the last check before a series runs, that its result
// file can be written, and then the catching of interrupts: ctx ends at
// the first, hard closes at the second; stop releases the signals.
func startSeries(env *Env, o *seriesOptions) (ctx context.Context, hard <-chan struct{}, stop func(), err error) {
	if err := checkWritable(o.out); err != nil {
		return nil, nil, nil, err
	}
	ctx, hard, stop = signalContext(env)
	return ctx, hard, stop, nil
}

// parseSeriesFlags parses a series command's own options.
func parseSeriesFlags(fs *pflag.FlagSet, own []string) error {
	if err := fs.Parse(own); err != nil {
		return translateFlagError(err)
	}
	if fs.NArg() > 0 {
		return &usageError{msg: fmt.Sprintf("unexpected argument \"%s\": the gbench command line to measure goes after \"--\"", fs.Arg(0)), hint: true}
	}
	return nil
}

// seriesBench is one gbench command line measured by a series: its
// validated setup, from which each run's engine configuration is made.
type seriesBench struct {
	b    *benchSetup
	o    *options
	args []string
	// duration of each run: the command line's -T, or the default.
	duration time.Duration
	runCtx   *runenv.Context
	probe    *runenv.Probe
}

// parseBenchLine reads a gbench command line measured by a series, with
// pgbench's checks, then the series' own rules: the series sets the
// clients or the rate it varies (so -c or -R there is refused when
// varied, named by forbid), runs for a duration, and writes one result
// (no -l, --json or --hdr-log per run).
func parseBenchLine(env *Env, cmd string, args []string, forbid map[string]string) (*seriesBench, error) {
	if len(args) == 0 {
		return nil, &usageError{msg: fmt.Sprintf("no gbench command line to measure: give it after \"--\", like \"gbench %s ... -- -f script.sql -T 10\"", cmd), hint: true}
	}
	o, fs, rest, err := parseArgs(env, args)
	var ee *earlyExit
	switch {
	case errors.As(err, &ee):
		return nil, usagef("the command line to measure only shows information (%s)", strings.TrimSpace(strings.SplitN(ee.text, "\n", 2)[0]))
	case err != nil:
		return nil, err
	case o.help || o.version:
		return nil, usagef("--help and --version have no place in the command line to measure: use \"gbench %s --help\"", cmd)
	case o.initialize:
		return nil, usagef("-i initializes: run \"gbench -i\" once before \"gbench %s\"", cmd)
	}
	if err := checkCommandLine(o, fs, rest); err != nil {
		return nil, err
	}
	checks := []struct {
		name, msg string
	}{
		{"transactions", "a series compares runs of equal length: give -T (seconds per run) rather than -t"},
		{"log", "-l writes a log per run; a series writes one result (-o)"},
		{"json", "--json is per run; a series writes its own result (-o)"},
		{"hdr-log", "--hdr-log is per run; a series keeps each run's histogram in its result (-o)"},
		{"warmup", "--warmup goes before \"--\": the series warms up once, before its first run"},
		{"threshold", "--threshold is a single run's gate; a series does not check it (run the chosen point alone with it)"},
		{"threshold-abort", "--threshold-abort is a single run's gate; a series does not check it"},
		{"group", "--group is a run's client groups; a series measures one command line"},
		{"stage", "--stage is a run's stages; a series chooses its own loads"},
	}
	for _, c := range checks {
		if fs.Changed(c.name) {
			return nil, usagef("%s", c.msg)
		}
	}
	for name, msg := range forbid {
		if fs.Changed(name) {
			return nil, usagef("%s", msg)
		}
	}
	b, err := prepareBench(env, o, fs)
	if err != nil {
		return nil, err
	}
	d := defaultSeriesDuration
	if o.duration > 0 {
		d = time.Duration(o.duration) * time.Second
	}
	return &seriesBench{b: b, o: o, args: args, duration: d}, nil
}

// engineConfig is the engine configuration of one run of l.
func (s *seriesBench) engineConfig(l series.Load, d time.Duration, seed uint64, hard <-chan struct{}) *engine.Config {
	c := *s.b.cfg
	c.Clients, c.Threads = l.Clients, min(s.o.jobs, l.Clients)
	c.Rate, c.Duration, c.Transactions, c.Seed = l.Rate, d, 0, seed
	c.HardStop = hard
	c.Log = nil
	return &c
}

// setUp connects for set-up like a pgbench run (versions, scale, the
// first VACUUM) and records the context; the banner goes to stderr.
func (s *seriesBench) setUp(ctx context.Context, env *Env, cmd string) int {
	quiet := *env
	quiet.Stdout = env.Stderr
	if s.b.cfg.Program.HasSQL {
		if code := s.b.prepareServer(ctx, &quiet, s.o); code != exitOK {
			return code
		}
	}
	s.runCtx, s.probe = runContext(ctx, s.b, append([]string{"gbench", cmd, "--"}, s.args...))
	s.probe.WaitInterval = s.o.waitEvents
	return exitOK
}

// vacuum runs pgbench's VACUUM before a run, unless -n, quietly: pgbench
// would run it before each of these runs, and its first run printed any
// error.
func (s *seriesBench) vacuum(ctx context.Context) error {
	if s.o.noVacuum || !s.b.cfg.Program.HasSQL {
		return nil
	}
	conn, err := s.b.pg.Open(ctx)
	if err != nil {
		return fmt.Errorf("connecting for VACUUM: %s", s.b.pg.Redact(err.Error()))
	}
	defer conn.Close()
	s.b.vacuum(ctx, &Env{Stderr: io.Discard}, conn, s.o.vacuumAll)
	return nil
}

// maxFiles checks the file limit for clients clients.
func (s *seriesBench) maxFiles(clients int) error {
	return checkFileLimit(clients * connsPerClient(s.b.cfg.Program))
}

// newSeriesResult starts a result.
func newSeriesResult(env *Env, kind string, so *seriesOptions, d time.Duration) *series.Result {
	return &series.Result{
		Schema: series.Schema, Kind: kind, Partial: true, Start: env.Now(),
		Plan: series.Plan{Commands: map[string][]string{}, Repeats: so.repeats, DurationS: d.Seconds(),
			WarmupS: so.warmup, Seed: so.seed},
		Warmup: []series.Run{}, Runs: []series.Run{},
	}
}

// seriesRunner makes the runner of a series over one command line.
func seriesRunner(env *Env, s *seriesBench, so *seriesOptions, cmd string, hard <-chan struct{}) *series.Runner {
	return &series.Runner{
		Engine: func(l series.Load, d time.Duration, seed uint64) (*engine.Config, error) {
			return s.engineConfig(l, d, seed, hard), nil
		},
		Prepare:  func(ctx context.Context, _ series.Load) error { return s.vacuum(ctx) },
		Probe:    func(series.Load) *runenv.Probe { return s.probe },
		Duration: s.duration, Warmup: time.Duration(so.warmup * float64(time.Second)),
		Progress: env.Stderr, Name: "gbench " + cmd,
	}
}

// saver returns the function that writes res to path.
func saver(env *Env, res *series.Result, path string) func() error {
	return func() error {
		res.End = env.Now()
		return writeAtomic(path, res.Write)
	}
}

// finishSeries writes the result a last time and returns the exit status:
// 2 when a run failed or the series was interrupted.
func finishSeries(env *Env, res *series.Result, path string, err error) int {
	if err == nil {
		res.Partial = res.Interrupted
		err = saver(env, res, path)()
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		return exitRun
	}
	failed := 0
	for i := range res.Runs {
		if res.Runs[i].Error != "" {
			failed++
		}
	}
	switch {
	case res.Interrupted:
		fmt.Fprintf(env.Stderr, "gbench %s: interrupted after %d runs; %s is marked partial\n", res.Kind, len(res.Runs), path)
		return exitRun
	case failed > 0:
		fmt.Fprintf(env.Stderr, "gbench %s: %d of %d runs failed (see \"error\" in %s)\n", res.Kind, failed, len(res.Runs), path)
		return exitRun
	}
	fmt.Fprintf(env.Stderr, "gbench %s: %d runs written to %s; \"gbench report %s\" draws it\n", res.Kind, len(res.Runs), path, path)
	return exitOK
}
