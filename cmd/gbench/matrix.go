package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/matrix"
	"github.com/gbench/gbench/engine/matrix/schema"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/engine/sandbox"
	"github.com/gbench/gbench/workloads"
	"github.com/spf13/pflag"
)

func init() { subcommands["matrix"] = runMatrix }

// matrixEnvVars are the environment variables that set the plan's
// defaults, as the reference benchmark's script reads them; flags win.
var matrixEnvVars = []string{"CONNECTIONS", "BATCHES", "REPEATS", "DURATION_SECONDS"}

// matrixMargin is how many PostgreSQL connections a sandbox allows beyond
// the largest connection count: the set-up and probe connections and the
// superuser reserve.
const matrixMargin = 20

// matrixOptions are the options of gbench matrix.
type matrixOptions struct {
	paths       []string
	keys        []int
	connections []int
	repeats     int
	duration    float64 // seconds
	threads     int
	randomKeys  bool
	seed        uint64
	data        workloads.Options
	warmup      float64 // seconds
	retries     int
	pg, resp    string
	load        bool
	out         string
	help        bool
}

// runMatrix is "gbench matrix [OPTION]...": every read path × keys per
// request × connection count, repeated, in a shuffled order, against a
// throwaway sandbox or the servers of --pg and --resp. It writes the JSON
// result (-o) after every sample. Exit status: 0 when every sample
// succeeded, 1 when the run could not start (bad options, no server, a
// failed contract check), 2 when a sample failed or Ctrl-C stopped the
// run; the JSON then holds what completed.
func runMatrix(env *Env, args []string) int {
	o, fs, err := parseMatrixArgs(env, args)
	if err != nil {
		return fail(env, err)
	}
	if o.help {
		matrixUsage(env.Stdout, fs)
		return exitOK
	}
	cfg, err := o.config(env, args)
	if err != nil {
		return fail(env, err)
	}
	if err := checkFileLimit(slices.Max(cfg.Connections) + matrixMargin); err != nil {
		return fail(env, err)
	}
	if err := checkWritable(o.out); err != nil {
		return fail(env, err)
	}
	ctx, stop, hard, unwatch := matrixSignals(env)
	defer unwatch()
	cfg.Stop, cfg.HardStop = stop, hard
	cfg.Save = func(r *schema.Result) error { return writeMatrix(o.out, r) }
	fmt.Fprintf(env.Stderr, "gbench matrix: seed %d (--seed %d replays this order)\n", cfg.Seed, cfg.Seed)
	if o.pg != "" {
		res, err := matrix.Run(ctx, cfg)
		return finishMatrix(env, o, res, err)
	}
	return runInSandbox(ctx, env, o, cfg)
}

// runInSandbox starts a throwaway PostgreSQL and Redis, runs the matrix
// against them and removes them.
func runInSandbox(ctx context.Context, env *Env, o *matrixOptions, cfg *matrix.Config) int {
	// The sandbox outlives ctx: Ctrl-C ends the run, and then the servers.
	sbCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb, err := sandbox.Start(sbCtx, sandbox.Options{
		Postgres: true, Redis: true, MaxConnections: slices.Max(cfg.Connections) + matrixMargin,
		SharedBuffers: sandbox.DefaultSharedBuffers, Log: env.Stderr, Getenv: env.Getenv,
	})
	if err != nil {
		return fail(env, err)
	}
	code := exitOK
	if cfg.PG, cfg.RESP, err = matrixServers(sb.PostgresConnString(), sb.RedisURL()); err != nil {
		code = fail(env, err)
	} else {
		cfg.PostgresPID, cfg.Sandbox, cfg.Load = sb.PostgresPID(), true, true
		cfg.PostgresCgroup, cfg.RedisCgroup = sb.PostgresCgroup(), sb.RedisCgroup()
		res, err := matrix.Run(ctx, cfg)
		code = finishMatrix(env, o, res, err)
	}
	if err := sb.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		code = max(code, exitUsage)
	}
	return code
}

// finishMatrix reports how the run ended and returns the exit status.
func finishMatrix(env *Env, o *matrixOptions, res *schema.Result, err error) int {
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\n", redact(err.Error()))
		if len(res.Samples) == 0 && !res.Interrupted {
			return exitUsage
		}
		return exitRun
	}
	planned := len(res.Plan.Paths) * len(res.Plan.Keys) * len(res.Plan.Connections) * res.Plan.Repeats
	took := res.End.Sub(res.Start).Round(time.Second)
	switch {
	case res.Interrupted:
		fmt.Fprintf(env.Stderr, "gbench matrix: interrupted after %d of %d samples; %s is marked partial\n", len(res.Samples), planned, o.out)
		return exitRun
	case res.FailedSamples > 0:
		fmt.Fprintf(env.Stderr, "gbench matrix: %d of %d samples failed (see \"error\" in %s)\n", res.FailedSamples, planned, o.out)
		return exitRun
	}
	fmt.Fprintf(env.Stderr, "gbench matrix: %d samples in %v written to %s; \"gbench report %s\" makes the report\n", planned, took, o.out, o.out)
	return exitOK
}

// parseMatrixArgs reads the environment variables, then the options.
func parseMatrixArgs(env *Env, args []string) (*matrixOptions, *pflag.FlagSet, error) {
	o := &matrixOptions{
		paths: pathNamesOf(workloads.Paths()), keys: workloads.KeyCounts(), connections: workloads.Connections(),
		repeats: matrix.DefaultRepeats, duration: matrix.DefaultDuration.Seconds(), threads: matrix.DefaultThreads,
		warmup: matrix.DefaultWarmup.Seconds(), retries: matrix.DefaultRetries, out: "matrix.json",
	}
	if err := o.fromEnv(env); err != nil {
		return nil, nil, err
	}
	fs := pflag.NewFlagSet("gbench matrix", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.Var(&matrixNames{p: &o.paths, valid: pathNamesOf(workloads.Paths())}, "paths", "read paths to measure")
	fs.Var(&matrixInts{p: &o.keys, name: "--keys"}, "keys", "keys per request (env BATCHES)")
	fs.VarP(&matrixInts{p: &o.connections, name: "--connections"}, "connections", "c", "connection counts (env CONNECTIONS)")
	fs.Var(&intValue{p: &o.repeats, name: "--repeats", min: 1, max: maxInt}, "repeats", "samples of each cell (env REPEATS)")
	fs.VarP(&matrixSeconds{p: &o.duration, name: "--duration", min: 0.1}, "duration", "T", "seconds per sample (env DURATION_SECONDS)")
	fs.VarP(&intValue{p: &o.threads, name: "--threads", min: 1, max: maxInt}, "threads", "j", "client threads of each sample")
	fs.BoolVar(&o.randomKeys, "random-keys", false, "read distinct random keys from 1..items instead of the fixed keys 1..N")
	fs.Var(&matrixSeed{o: o}, "seed", "seed of the sample order and the clients' random keys (default: from the clock, recorded in the JSON)")
	fs.Var(&intValue{p: &o.data.Items, name: "--items", min: workloads.MinItems, max: maxInt}, "items", "rows of gbench.items and Redis keys gbench:item:1..N (default 4096)")
	fs.Var(&intValue{p: &o.data.ValueSize, name: "--value-size", min: 1, max: workloads.MaxValueSize}, "value-size", "bytes per value (default 128)")
	fs.Var(&matrixSeconds{p: &o.warmup, name: "--warmup", min: 0}, "warmup", "seconds of warm-up of each path at the largest connection count; 0 for none")
	fs.Var(&intValue{p: &o.retries, name: "--retries", min: 0, max: 100}, "retries", "more tries of a failed sample (a server restart, a dropped connection), each recorded")
	fs.StringVar(&o.pg, "pg", "", "use the PostgreSQL database `CONNINFO` (or URI) instead of a sandbox; needs --resp")
	fs.StringVar(&o.resp, "resp", "", "use the Redis at `URL` (redis://host:port/db) instead of a sandbox; needs --pg")
	fs.BoolVar(&o.load, "load", false, "with --pg and --resp: load the dataset first, into the schema gbench and the keys gbench:* (it refuses to replace what gbench did not create)")
	fs.StringVarP(&o.out, "out", "o", o.out, "write the JSON result to `FILE`")
	fs.BoolVar(&o.help, "help", false, "show this help, then exit")
	if err := fs.Parse(args); err != nil {
		return nil, nil, translateFlagError(err)
	}
	if fs.NArg() > 0 {
		return nil, nil, &usageError{msg: fmt.Sprintf("unexpected argument \"%s\"", fs.Arg(0)), hint: true}
	}
	if !fs.Changed("seed") {
		o.seed = uint64(env.Now().UnixNano())
	}
	return o, fs, o.check()
}

// fromEnv applies CONNECTIONS, BATCHES, REPEATS and DURATION_SECONDS.
func (o *matrixOptions) fromEnv(env *Env) error {
	values := map[string]pflag.Value{
		"CONNECTIONS":      &matrixInts{p: &o.connections, name: "CONNECTIONS"},
		"BATCHES":          &matrixInts{p: &o.keys, name: "BATCHES"},
		"REPEATS":          &intValue{p: &o.repeats, name: "REPEATS", min: 1, max: maxInt},
		"DURATION_SECONDS": &matrixSeconds{p: &o.duration, name: "DURATION_SECONDS", min: 0.1},
	}
	for _, name := range matrixEnvVars {
		if s := env.Getenv(name); s != "" {
			if err := values[name].Set(s); err != nil {
				return &usageError{msg: strings.Replace(err.Error(), "option "+name, "environment variable "+name, 1)}
			}
		}
	}
	return nil
}

// check applies the rules between options.
func (o *matrixOptions) check() error {
	switch {
	case (o.pg == "") != (o.resp == ""):
		return usagef("--pg and --resp go together: give both servers, or neither for a sandbox")
	case o.load && o.pg == "":
		return usagef("--load needs --pg and --resp (a sandbox is always loaded)")
	case len(o.paths)*len(o.keys)*len(o.connections) > schema.MaxPlanCells:
		return usagef("the plan has %d cells (paths × keys × connections), more than %d: measure fewer at once",
			len(o.paths)*len(o.keys)*len(o.connections), schema.MaxPlanCells)
	case o.pg != "" && !o.load && (o.data != workloads.Options{}):
		return usagef("--items and --value-size describe the data to load: add --load, or leave them out to read what the servers hold")
	}
	return nil
}

// config builds the matrix configuration.
func (o *matrixOptions) config(env *Env, args []string) (*matrix.Config, error) {
	cfg := &matrix.Config{
		Keys: o.keys, Connections: o.connections, Repeats: o.repeats,
		Duration: time.Duration(o.duration * float64(time.Second)), Threads: o.threads,
		RandomKeys: o.randomKeys, Seed: o.seed, Data: o.data, Load: o.load,
		Warmup: time.Duration(o.warmup * float64(time.Second)), Retries: o.retries,
		Gbench: version, Command: redactArgs(append([]string{"gbench", "matrix"}, args...)),
		Progress: env.Stderr, Now: env.Now,
	}
	if o.warmup == 0 {
		cfg.Warmup = -1
	}
	if o.retries == 0 {
		cfg.Retries = -1
	}
	var err error
	if cfg.Transport, err = engine.TransportFromEnv(env.Getenv); err != nil {
		return nil, usagef("%v", err)
	}
	for _, name := range o.paths {
		for _, p := range workloads.Paths() {
			if p.Name == name {
				cfg.Paths = append(cfg.Paths, p)
			}
		}
	}
	for _, name := range matrixEnvVars {
		if v := env.Getenv(name); v != "" {
			if cfg.Variables == nil {
				cfg.Variables = map[string]string{}
			}
			cfg.Variables[name] = v
		}
	}
	if o.pg != "" {
		if cfg.PG, cfg.RESP, err = matrixServers(o.pg, o.resp); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// matrixServers parses the servers' addresses.
func matrixServers(conninfo, url string) (*pgsql.Config, resp.Options, error) {
	pg, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		return nil, resp.Options{}, usagef("invalid --pg: %s", parseConfigError(conninfo, err))
	}
	pg.SetFallbackApplicationName("gbench-matrix")
	ro, err := resp.ParseURL(url)
	if err != nil {
		return nil, resp.Options{}, usagef("%v", err)
	}
	return pg, ro, nil
}

// redactArgs hides passwords in a command line for the result.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = redactArg(a)
	}
	return out
}

// checkWritable fails early when the result could not be written.
func checkWritable(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return usagef("cannot write the result to %q: %v", path, unwrapPathError(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeMatrix writes the result to path through a temporary file, so that
// the file always holds a whole result.
func writeMatrix(path string, r *schema.Result) error { return writeAtomic(path, r.Write) }

// writeAtomic fills path with write through a temporary file renamed into
// place, so that the file always holds a whole document (results written
// after every sample or run).
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// matrixSignals handles interrupts: the first stops the run after the
// current sample, the second cuts the current sample short (ctx), the
// third aborts its clients at once.
func matrixSignals(env *Env) (ctx context.Context, stop, hard <-chan struct{}, unwatch func()) {
	ctx, cancel := context.WithCancel(context.Background())
	stopCh, hardCh := make(chan struct{}), make(chan struct{})
	if env.Signals == nil {
		return ctx, stopCh, hardCh, cancel
	}
	ch := make(chan os.Signal, 3)
	env.Signals(ch)
	done := make(chan struct{})
	go func() {
		steps := []func(){
			func() {
				fmt.Fprintf(env.Stderr, "gbench matrix: interrupt: stopping after the current sample (Ctrl-C again stops it now)\n")
				close(stopCh)
			},
			cancel,
			func() { close(hardCh) },
		}
		for _, step := range steps {
			select {
			case <-ch:
				step()
			case <-done:
				return
			}
		}
	}()
	return ctx, stopCh, hardCh, func() { close(done); cancel() }
}

func matrixUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `gbench matrix measures the "PostgreSQL as a cache vs Redis" matrix: every read
path (SQL = ANY, SQL mget(), Redis MGET) × keys per request × connection count,
each repeated, in a shuffled order. By default it runs against a throwaway
PostgreSQL and Redis loaded with the dataset; --pg and --resp use existing
servers. It checks first that every path returns the same values, warms up,
then writes the JSON result after every sample. "gbench report" turns it into
markdown and SVG charts.

Usage:
  gbench matrix [OPTION]...

Options:
%s
Environment: CONNECTIONS, BATCHES (keys per request), REPEATS and
DURATION_SECONDS set the defaults; lists are separated by commas or blanks.

Ctrl-C stops after the current sample (press it again to stop that one too);
the JSON is then marked partial. Exit status: 0 when every sample succeeded,
1 when the run could not start, 2 when a sample failed or the run was stopped.

Example:
  gbench matrix --repeats 3 --duration 5 -o matrix.json && gbench report matrix.json -o results
`, fs.FlagUsages())
}

// pathNamesOf lists the paths' names.
func pathNamesOf(ps []workloads.Path) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}
