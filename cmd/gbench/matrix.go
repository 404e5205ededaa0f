package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/matrix"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/workloads"
	"github.com/spf13/pflag"
)

// matrixEnvVars are the environment variables that set the plan's
// defaults, as the reference benchmark's script reads them; flags win.
var matrixEnvVars = []string{"CONNECTIONS", "BATCHES", "REPEATS", "DURATION_SECONDS"}

// matrixMargin is how many PostgreSQL connections a sandbox allows beyond
// the largest connection count: the set-up and probe connections and the
// superuser reserve.
const matrixMargin = 20

// matrixOptions are the options of gbench matrix. The plan (--plan, the
// bundled "read" by default) says what to measure; the other options
// change it.
type matrixOptions struct {
	plan        string
	paths       string // --paths, checked against the plan's paths
	keys        []int
	connections []int
	rates       []int
	repeats     int
	duration    float64 // seconds
	requests    int
	threads     int
	randomKeys  bool
	seed        uint64
	data        workloads.Options
	warmup      float64 // seconds
	retries     int
	pg, resp    string
	load        bool
	// durabilityOff is --durability=off.
	durabilityOff bool
	out           string
	help          bool
	// thresholds are --threshold's lists, for every cell.
	thresholds []string
	// set are the plan's fields the options or the environment set.
	set map[string]bool
}

// runMatrix is "gbench matrix [OPTION]...": every path × mix × keys per
// request × connection count × rate of a plan, repeated, in a shuffled
// order, against a throwaway sandbox or the servers of the plan, --pg and
// --resp. It writes the JSON result (-o) after every sample. Exit status:
// 0 when every sample succeeded, 1 when the run could not start (bad
// options or plan, no server, a failed contract check), 2 when a sample
// failed or Ctrl-C stopped the run; the JSON then holds what completed.
// 3 when every sample succeeded but a cell breached a threshold (the
// plan's, a path's or --threshold), checked after the last sample.
func runMatrix(env *Env, args []string) int {
	o, fs, err := parseMatrixArgs(env, args)
	if err != nil {
		return fail(env, err)
	}
	warnOldSpellings(env.Stderr, fs)
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
	fmt.Fprintf(env.Stderr, "gbench matrix: plan %s, seed %d (--seed %d replays this order)\n", cfg.Name, cfg.Seed, cfg.Seed)
	if cfg.PG != nil || cfg.RESP != nil {
		res, err := matrix.Run(ctx, cfg)
		return finishMatrix(env, o, cfg, res, err)
	}
	return runInSandbox(ctx, env, o, cfg)
}

// runInSandbox starts a throwaway PostgreSQL and Redis (those the plan
// needs), runs the matrix against them and removes them.
func runInSandbox(ctx context.Context, env *Env, o *matrixOptions, cfg *matrix.Config) int {
	needPG, needRESP := cfg.NeedsServers()
	// The sandbox outlives ctx: Ctrl-C ends the run, and then the servers.
	sbCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sb, err := sandbox.Start(sbCtx, sandbox.Options{
		Postgres: needPG, Redis: needRESP, MaxConnections: slices.Max(cfg.Connections) + matrixMargin,
		SharedBuffers: sandbox.DefaultSharedBuffers, DurabilityOff: cfg.DurabilityOff, Log: env.Stderr, Getenv: env.Getenv,
	})
	if err != nil {
		return fail(env, err)
	}
	code := exitOK
	if needPG {
		cfg.PG, err = matrixPG(sb.PostgresConnString())
	}
	if err == nil && needRESP {
		cfg.RESP, err = matrixRESP(sb.RedisURL())
	}
	if err != nil {
		code = fail(env, err)
	} else {
		cfg.Sandbox, cfg.Load = true, true
		if needPG {
			cfg.PostgresPID, cfg.PostgresCgroup = sb.PostgresPID(), sb.PostgresCgroup()
			cfg.PostgresCgroups = matrix.Cgroups(sb.PostgresCgroups())
		}
		if needRESP {
			cfg.RedisCgroup = sb.RedisCgroup()
			cfg.RedisCgroups = matrix.Cgroups(sb.RedisCgroups())
		}
		res, err := matrix.Run(ctx, cfg)
		code = finishMatrix(env, o, cfg, res, err)
	}
	if err := sb.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		code = max(code, exitUsage)
	}
	return code
}

// finishMatrix reports how the run ended and returns the exit status.
func finishMatrix(env *Env, o *matrixOptions, cfg *matrix.Config, res *schema.Result, err error) int {
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\n", cfg.Redact(err.Error()))
		if len(res.Samples) == 0 && !res.Interrupted {
			return exitUsage
		}
		return exitRun
	}
	planned := res.Plan.Planned()
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
	if bad := schema.BreachedCells(res.Thresholds); len(bad) > 0 {
		fmt.Fprintf(env.Stderr, "gbench matrix: %d of %d cells breached a threshold (\"thresholds\" in %s):\n", len(bad), len(res.Thresholds), o.out)
		for _, b := range bad {
			fmt.Fprintf(env.Stderr, "  %s\n", b)
		}
		return exitThreshold
	}
	if len(res.Thresholds) > 0 {
		fmt.Fprintf(env.Stderr, "gbench matrix: every cell met its thresholds (%d cells)\n", len(res.Thresholds))
	}
	return exitOK
}

// parseMatrixArgs reads the environment variables, then the options.
func parseMatrixArgs(env *Env, args []string) (*matrixOptions, *pflag.FlagSet, error) {
	o := &matrixOptions{plan: "read", out: "matrix.json", set: map[string]bool{}}
	if err := o.fromEnv(env); err != nil {
		return nil, nil, err
	}
	fs := pflag.NewFlagSet("gbench matrix", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVar(&o.plan, "plan", o.plan, "measure the plan `NAME` (bundled: "+strings.Join(workloads.Plans(), ", ")+") or the plan file FILE.toml")
	fs.StringVar(&o.paths, "paths", "", "measure only these paths of the plan (read: sql-any, sql-mget, resp-mget)")
	fs.Var(&matrixInts{p: &o.keys, name: "--keys-per-request"}, "keys-per-request", "keys per request (env BATCHES)")
	fs.VarP(&matrixInts{p: &o.connections, name: "--connections"}, "connections", "c", "connection counts (env CONNECTIONS)")
	fs.Var(&matrixInts{p: &o.rates, name: "--rates", zero: true}, "rates", "target rates in requests per second (--rate), 0 for unthrottled")
	fs.Var(&intValue{p: &o.repeats, name: "--repeats", min: 1, max: 10000}, "repeats", "samples of each cell (env REPEATS)")
	fs.VarP(&matrixSeconds{p: &o.duration, name: "--duration", min: 0.1}, "duration", "T", "seconds per sample (env DURATION_SECONDS)")
	fs.VarP(&intValue{p: &o.requests, name: "--requests", min: 1, max: maxInt}, "requests", "t", "requests per sample, shared by its connections, instead of a duration")
	fs.VarP(&intValue{p: &o.threads, name: "--threads", min: 1, max: 10000}, "threads", "j", "client threads of each sample")
	fs.BoolVar(&o.randomKeys, "random-keys", false, "read distinct random keys from 1..items instead of the fixed keys 1..N")
	fs.Var(&matrixSeed{o: o}, "seed", "seed of the sample order and the clients' random keys (default: from the clock, recorded in the JSON)")
	fs.Var(&intValue{p: &o.data.Items, name: "--items", min: workloads.MinItems, max: maxInt}, "items", "rows of gbench.items and Redis keys gbench:item:1..N")
	fs.Var(&intValue{p: &o.data.ValueSize, name: "--value-size", min: 1, max: workloads.MaxValueSize}, "value-size", "bytes per value")
	fs.Var(&intValue{p: &o.data.Keys, name: "--keyspace", min: 1, max: maxInt}, "keyspace", "keys of the kv workloads: rows of gbench.kv and gbench.kv_logged, Redis keys gbench:kv:1..N")
	fs.Var(&intValue{p: &o.data.Sessions, name: "--sessions", min: 1, max: maxInt}, "sessions", "the article's UUID keyspace (plan sessions): rows of gbench.sessions(_logged), Redis keys gbench:session:<uuid(1..S)>")
	fs.Var(&matrixSeconds{p: &o.warmup, name: "--warmup", min: 0}, "warmup", "seconds of warm-up of each path at the largest connection count; 0 for none")
	fs.Var(&intValue{p: &o.retries, name: "--retries", min: 0, max: 100}, "retries", "more tries of a failed sample (a server restart, a dropped connection), each recorded")
	fs.StringVar(&o.pg, "pg", "", "use the PostgreSQL database `CONNINFO` (or URI) instead of a sandbox")
	fs.StringVar(&o.resp, "resp", "", "use the Redis (or other RESP server) at `URL` (redis://host:port/db) instead of a sandbox")
	fs.Var(durabilityValue{off: &o.durabilityOff}, "durability", durabilityUsage)
	fs.BoolVar(&o.load, "load", false, "with --pg or --resp: load the dataset first, into the schema gbench and the keys gbench:* (it refuses to replace what gbench did not create)")
	fs.StringVarP(&o.out, "out", "o", o.out, "write the JSON result to `FILE`")
	fs.StringArrayVar(&o.thresholds, "threshold", nil, "every cell must meet `LIST` on its medians, like \"p99<=5ms,tps>=1000\" (also the plan's\nthreshold); exit 3 after the run when a cell breaches it (repeatable)")
	fs.BoolVar(&o.help, "help", false, "show this help, then exit")
	addOldSpellings(fs)
	if err := fs.Parse(args); err != nil {
		return nil, nil, translateFlagError(err)
	}
	if fs.NArg() > 0 {
		return nil, nil, &usageError{msg: fmt.Sprintf("unexpected argument \"%s\"", fs.Arg(0)), hint: true}
	}
	fs.Visit(func(f *pflag.Flag) { o.set[f.Name] = true })
	if o.set["keys-per-request"] {
		o.set["keys"] = true
	}
	if !o.set["seed"] {
		o.seed = uint64(env.Now().UnixNano())
	}
	return o, fs, o.check()
}

// fromEnv applies CONNECTIONS, BATCHES, REPEATS and DURATION_SECONDS.
func (o *matrixOptions) fromEnv(env *Env) error {
	values := map[string]pflag.Value{
		"CONNECTIONS":      &matrixInts{p: &o.connections, name: "CONNECTIONS"},
		"BATCHES":          &matrixInts{p: &o.keys, name: "BATCHES"},
		"REPEATS":          &intValue{p: &o.repeats, name: "REPEATS", min: 1, max: 10000},
		"DURATION_SECONDS": &matrixSeconds{p: &o.duration, name: "DURATION_SECONDS", min: 0.1},
	}
	flags := map[string]string{"CONNECTIONS": "connections", "BATCHES": "keys", "REPEATS": "repeats", "DURATION_SECONDS": "duration"}
	for _, name := range matrixEnvVars {
		if s := env.Getenv(name); s != "" {
			if err := values[name].Set(s); err != nil {
				return &usageError{msg: strings.Replace(err.Error(), "option "+name, "environment variable "+name, 1)}
			}
			o.set[flags[name]] = true
		}
	}
	return nil
}

// check applies the rules between options.
func (o *matrixOptions) check() error {
	switch {
	case o.set["durability"] && (o.pg != "" || o.resp != ""):
		return usagef("--durability sets the sandbox's PostgreSQL; with --pg or --resp the servers keep their own settings")
	case o.load && o.pg == "" && o.resp == "":
		return usagef("--load needs --pg or --resp (a sandbox is always loaded)")
	case o.set["duration"] && o.set["requests"]:
		return usagef("--duration and --requests go one at a time: a sample lasts a time or serves a number of requests")
	case o.pg != "" && !o.load && (o.data != workloads.Options{}):
		return usagef("--items, --value-size, --keyspace and --sessions describe the data to load: add --load, or leave them out to read what the servers hold")
	}
	return nil
}

// config reads the plan, applies the options to it and validates it.
func (o *matrixOptions) config(env *Env, args []string) (*matrix.Config, error) {
	plan, popts, err := readPlan(o.plan)
	if err != nil {
		return nil, err
	}
	if err := o.apply(plan); err != nil {
		return nil, err
	}
	if o.pg != "" || o.resp != "" {
		plan.Servers = matrix.PlanServers{}
	}
	cfg, err := plan.Config(popts)
	if err != nil {
		return nil, usagef("%v", err)
	}
	cfg.Load = o.load
	if o.set["durability"] {
		cfg.DurabilityOff = o.durabilityOff
	}
	cfg.Gbench, cfg.Command = version, redactArgs(append([]string{"gbench", "matrix"}, args...))
	cfg.Progress, cfg.Now = env.Stderr, env.Now
	if !o.set["seed"] && plan.Seed != nil {
		o.seed = *plan.Seed
	}
	cfg.Seed = o.seed
	if cfg.Transport, err = engine.TransportFromEnv(env.Getenv); err != nil {
		return nil, usagef("%v", err)
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
		if cfg.PG, err = matrixPG(o.pg); err != nil {
			return nil, err
		}
	}
	if o.resp != "" {
		if cfg.RESP, err = matrixRESP(o.resp); err != nil {
			return nil, err
		}
	}
	return cfg, o.checkServers(cfg)
}

// checkServers refuses a run on existing servers that lacks one a path
// needs.
func (o *matrixOptions) checkServers(cfg *matrix.Config) error {
	if cfg.PG == nil && cfg.RESP == nil {
		return nil // a sandbox
	}
	needPG, needRESP := cfg.NeedsServers()
	switch {
	case needPG && cfg.PG == nil:
		return usagef("the plan's paths talk to PostgreSQL: give --pg CONNINFO too, or neither --pg nor --resp for a sandbox")
	case needRESP && cfg.RESP == nil:
		return usagef("the plan's paths talk to a RESP server: give --resp URL too, or neither --pg nor --resp for a sandbox")
	}
	return nil
}

// apply puts the options and environment variables given into the plan.
func (o *matrixOptions) apply(p *matrix.Plan) error {
	if o.paths != "" {
		if err := o.selectPaths(p); err != nil {
			return err
		}
	}
	if o.set["keys"] {
		if len(p.Keys) == 0 {
			return usagef("--keys-per-request (or BATCHES): the plan's scripts read no list of keys")
		}
		p.Keys = o.keys
	}
	if o.set["connections"] {
		p.Connections = o.connections
	}
	if o.set["rates"] {
		p.Rates = nil
		for _, r := range o.rates {
			p.Rates = append(p.Rates, float64(r))
		}
	}
	if o.set["repeats"] {
		p.Repeats = o.repeats
	}
	if o.set["duration"] {
		p.DurationS, p.Requests = o.duration, 0
	}
	if o.set["requests"] {
		p.DurationS, p.Requests = 0, int64(o.requests)
	}
	if o.set["threads"] {
		p.Threads = o.threads
	}
	if o.set["random-keys"] {
		p.RandomKeys = o.randomKeys
	}
	if o.set["warmup"] {
		p.WarmupS = &o.warmup
	}
	if o.set["retries"] {
		p.Retries = &o.retries
	}
	for _, l := range o.thresholds {
		if _, err := schema.ParseCellThresholds(l); err != nil {
			return usagef("--threshold: %v", err)
		}
		if strings.TrimSpace(p.Threshold) != "" {
			l = strings.TrimSpace(p.Threshold) + "," + l
		}
		p.Threshold = l
	}
	if o.data.Items != 0 {
		p.Dataset.Items = o.data.Items
	}
	if o.data.ValueSize != 0 {
		p.Dataset.ValueSize = o.data.ValueSize
	}
	if o.data.Keys != 0 {
		p.Dataset.KVKeys = o.data.Keys
	}
	if o.data.Sessions != 0 {
		p.Dataset.Sessions = o.data.Sessions
	}
	return nil
}

// selectPaths keeps the plan's paths --paths names, in the plan's order.
func (o *matrixOptions) selectPaths(p *matrix.Plan) error {
	var valid []string
	for _, pp := range p.Paths {
		valid = append(valid, pp.Name)
	}
	given := splitMatrixList(o.paths)
	for _, n := range given {
		if !slices.Contains(valid, n) {
			return usagef("invalid path \"%s\" for option --paths: expected some of %s", n, strings.Join(valid, ", "))
		}
	}
	if len(given) == 0 {
		return usagef("invalid value \"%s\" for option --paths: expected some of %s", o.paths, strings.Join(valid, ", "))
	}
	p.Paths = slices.DeleteFunc(p.Paths, func(pp matrix.PlanPath) bool { return !slices.Contains(given, pp.Name) })
	return nil
}

// readPlan reads the plan a --plan argument names: a plan file when there
// is a file of that name, else a bundled plan.
func readPlan(arg string) (*matrix.Plan, matrix.PlanOptions, error) {
	popts := matrix.PlanOptions{Name: arg, File: arg}
	var data []byte
	st, err := os.Stat(arg)
	if err == nil && !st.Mode().IsRegular() {
		err = fs.ErrNotExist // a directory "read" does not hide the bundled plan
	}
	if err == nil {
		data, err = os.ReadFile(arg)
	}
	switch {
	case err == nil:
		dir := filepath.Dir(arg)
		popts.ReadFile = func(name string) ([]byte, error) {
			if !filepath.IsAbs(name) {
				name = filepath.Join(dir, name)
			}
			b, err := os.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("could not read file \"%s\": %s", name, strerror(err))
			}
			return b, nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, popts, usagef("could not read the plan \"%s\": %s", arg, strerror(err))
	default:
		name := strings.TrimSuffix(arg, ".toml")
		if data, err = workloads.PlanText(name); err != nil {
			return nil, popts, usagef("no plan file \"%s\" and no bundled plan of that name (bundled: %s; \"gbench plans list\" says what each measures)",
				arg, strings.Join(workloads.Plans(), ", "))
		}
		popts.Name, popts.File = name, name+".toml"
	}
	popts.Data = data
	plan, err := matrix.ParsePlan(popts.File, data)
	if err != nil {
		return nil, popts, usagef("%v", err)
	}
	return plan, popts, nil
}

// matrixPG parses a PostgreSQL conninfo for the matrix.
func matrixPG(conninfo string) (*pgsql.Config, error) {
	pg, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		return nil, usagef("invalid --pg: %s", pgsql.ParseConfigError(conninfo, err))
	}
	return pg, nil
}

// matrixRESP parses a RESP URL for the matrix.
func matrixRESP(url string) (*resp.Options, error) {
	ro, err := resp.ParseURL(url)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return &ro, nil
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
	fmt.Fprintf(w, `gbench matrix measures a plan: every path × mix × keys per request × connection
count × rate, each cell repeated, in a shuffled order. The default plan,
"read", is the "PostgreSQL as a cache vs Redis" read matrix: SQL = ANY, SQL
mget(), Redis MGET × 1, 16, 64 keys × 4, 64, 256 connections. --plan names
another bundled plan ("gbench plans list") or a plan file of your own, whose
paths are gbench scripts. By default it runs against a throwaway PostgreSQL
and Redis loaded with the dataset; --pg and --resp use existing servers. It
checks first that the paths return the dataset's values, warms up, then
writes the JSON result after every sample. "gbench report" turns it into
markdown and SVG charts.

Usage:
  gbench matrix [OPTION]...

Options:
%s
Environment: CONNECTIONS, BATCHES (keys per request), REPEATS and
DURATION_SECONDS change the plan as the matching options do; lists are
separated by commas or blanks. Options win.

Ctrl-C stops after the current sample (press it again to stop that one too);
the JSON is then marked partial. Exit status: 0 when every sample succeeded,
1 when the run could not start, 2 when a sample failed or the run was stopped,
3 when every sample succeeded but a cell breached a threshold (the plan's
threshold, a path's, or --threshold; checked on each cell's medians).

Examples:
  gbench matrix --repeats 3 --duration 5 -o matrix.json && gbench report matrix.json -o results
  gbench matrix --plan mixed -o mixed.json && gbench report mixed.json -o mixed
  gbench matrix --plan my-plan.toml --pg "host=db1 dbname=app" -o mine.json
`, fs.FlagUsages())
}
