package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/cnum"
	"github.com/gbench/gbench/output/metrics"
	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/fleet"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
)

// benchSetup is what the benchmark needs beyond engine.Config.
type benchSetup struct {
	cfg           *engine.Config
	out           *outputs // outputs besides the summary
	serverVersion string
	transportNote string // why a faster transport was refused, if one was
	pg            *pgsql.Config
	builtin       bool
	scaleGiven    bool
	percentiles   []float64
	summary       report.Summary
	// runCtx and activity are the run's context and what the servers did
	// during it, for --json.
	runCtx   *runenv.Context
	activity *runenv.Activity
	// waitEvents is --wait-events' profile; waitEventsNote why there is
	// none.
	waitEvents     *schema.WaitEvents
	waitEventsNote string
	// respOptions is --resp's server; fleet the worker's part in a run
	// over several machines (nil for a run of its own).
	respOptions resp.Options
	fleet       *fleetSetup
	// metrics is --metrics-addr's exporter; nil without.
	metrics *metrics.Exporter
	// gates are --threshold's; nil without.
	gates *gates
	// warmup is what --warmup ran; nil without.
	warmup *report.Warmup
	// group is the client group this run is, under --group; nil otherwise.
	group *groupRun
}

// runBench runs a benchmark: pgbench's main path.
func runBench(env *Env, o *options, fs *pflag.FlagSet) int {
	b, err := prepareBench(env, o, fs)
	if err != nil {
		return fail(env, err)
	}
	ctx, hard, stop := signalContext(env)
	defer stop()
	b.cfg.HardStop = hard
	if b.cfg.Program.HasSQL {
		if code := b.prepareServer(ctx, env, o); code != exitOK {
			return code
		}
	}
	srv, err := b.serveMetrics(env, o)
	if err != nil {
		return fail(env, err)
	}
	var ok bool
	if b.warmup, ok = b.warmUp(ctx, env, o.warmup); !ok {
		b.closeMetrics(env, srv, nil)
		return exitRun
	}
	var probe *runenv.Probe
	if o.jsonOut != "" {
		b.runCtx, probe = runContext(ctx, b, append([]string{"gbench"}, o.args...))
		probe.Begin(ctx)
	}
	stopWaits := b.startWaits(ctx, o.waitEvents)
	res, err := engine.Run(b.gates.withAbort(ctx), b.cfg)
	stopWaits()
	b.fleet.close(env)
	if err != nil {
		b.closeMetrics(env, srv, nil)
		return fail(env, err)
	}
	defer b.closeMetrics(env, srv, res)
	if probe != nil {
		b.activity = probe.End(context.WithoutCancel(ctx))
	}
	return b.finish(env, o, res)
}

// prepareBench validates options and scripts into an engine configuration.
func prepareBench(env *Env, o *options, fs *pflag.FlagSet) (*benchSetup, error) {
	scripts, builtin, err := loadScripts(env, o)
	if err != nil {
		return nil, err
	}
	mode, _ := script.ParseMode(o.mode)
	var names []string
	for _, d := range o.defines {
		names = append(names, d.name)
	}
	prog, err := script.Compile(scripts, mode, names)
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	if err := checkBenchOptions(o, fs); err != nil {
		return nil, err
	}
	if o.waitEvents > 0 && !prog.HasSQL {
		return nil, usagef("--wait-events samples PostgreSQL's wait states, and the scripts send no SQL")
	}
	if o.warmup > 0 && o.workerCount > 0 {
		return nil, usagef("--warmup cannot be used with --worker: the workers start together at a planned time")
	}
	if err := fleetEnv(env, o); err != nil {
		return nil, err
	}
	if err := checkFleet(o); err != nil {
		return nil, err
	}
	list, err := percentileList(o, fs)
	if err != nil {
		return nil, err
	}
	pct, err := parsePercentiles(list)
	if err != nil {
		return nil, err
	}
	seed := randomSeed(env, o)
	transport, err := engine.TransportFromEnv(env.Getenv)
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	// The transport is settled before the run so that the banner can name
	// it: auto becomes io_uring, or epoll with the reason io_uring was
	// refused.
	transport, transportNote, err := engine.ResolveTransport(transport)
	if err != nil {
		return nil, &usageError{msg: "GBENCH_TRANSPORT: " + err.Error()}
	}
	cfg := &engine.Config{
		Program: prog, Clients: o.clients, Threads: min(o.jobs, o.clients),
		Transactions: int64(o.transactions), Duration: time.Duration(o.duration) * time.Second,
		Rate: o.rate, LatencyLimit: time.Duration(o.latencyLimit * float64(time.Millisecond)),
		MaxTries: o.maxTries, Connect: o.connect, Progress: time.Duration(o.progress) * time.Second,
		PerCommand: o.perCommand, ExitOnAbort: o.exitOnAbort, VerboseErrors: o.verboseErrors,
		ContinueOnError: o.continueOnError, IOTimeout: o.ioTimeout,
		Reconnect: engine.Reconnect{Enabled: o.reconnect, Delay: o.reconnectDelay[0], MaxDelay: o.reconnectDelay[1], Max: o.maxReconnects},
		Debug:     o.debug, Seed: seed, Scale: max(o.scale, 1), Stderr: env.Stderr, Stdout: shellStdout(env, o),
		SamplingRate: o.samplingRate, Transport: transport,
		Shard: engine.Shard{Index: o.workerIndex, Count: max(o.workerCount, 1)},
	}
	if cfg.Transactions == 0 && cfg.Duration == 0 {
		cfg.Transactions = 10
	}
	for _, d := range o.defines {
		cfg.Defines = append(cfg.Defines, engine.Define{Name: d.name, Value: d.value})
	}
	b := &benchSetup{cfg: cfg, builtin: builtin, scaleGiven: fs.Changed("scale"), percentiles: pct, transportNote: transportNote, group: o.group}
	if b.gates, err = parseGates(o, prog); err != nil {
		return nil, err
	}
	if err := b.connectors(env, o); err != nil {
		return nil, err
	}
	if err := b.cfg.Validate(); err != nil {
		return nil, err
	}
	from, to := cfg.Shard.Clients(cfg.Clients, min(max(cfg.Threads, 1), cfg.Clients))
	if err := checkFileLimit((to - from) * connsPerClient(prog)); err != nil {
		return nil, err
	}
	if b.fleet = newFleet(o, b); b.fleet != nil {
		cfg.Start = b.fleet.start
	}
	if err := b.newMetrics(o, to-from); err != nil {
		return nil, err
	}
	b.setOutputs(env, o)
	return b, nil
}

// checkBenchOptions applies pgbench's checks between options.
func checkBenchOptions(o *options, fs *pflag.FlagSet) error {
	logging := o.log
	switch {
	case o.transactions > 0 && o.duration > 0:
		return usagef("specify either a number of transactions (-t) or a duration (-T), not both")
	case o.samplingRate > 0 && !logging:
		return usagef("log sampling (--sampling-rate) is allowed only when logging transactions (-l)")
	case o.samplingRate > 0 && o.aggInterval > 0:
		return usagef("log sampling (--sampling-rate) and aggregation (--aggregate-interval) cannot be used at the same time")
	case o.aggInterval > 0 && !logging:
		return usagef("log aggregation is allowed only when actually logging transactions")
	case fs.Changed("log-prefix") && !logging:
		return usagef("log file prefix (--log-prefix) is allowed only when logging transactions (-l)")
	case o.duration > 0 && o.aggInterval > o.duration:
		return usagef("number of seconds for aggregation (%d) must not be higher than test duration (%d)", o.aggInterval, o.duration)
	case o.duration > 0 && o.aggInterval > 0 && o.duration%o.aggInterval != 0:
		return usagef("duration (%d) must be a multiple of aggregation interval (%d)", o.duration, o.aggInterval)
	case o.progressTimestamp && o.progress == 0:
		return usagef("--progress-timestamp is allowed only under --progress")
	case o.maxTries == 0 && o.latencyLimit == 0 && o.duration <= 0:
		return usagef("an unlimited number of transaction tries can only be used with --latency-limit or a duration (-T)")
	}
	return nil
}

// parsePercentiles reads --percentiles: numbers in (0, 100].
func parsePercentiles(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(q > 0 && q <= 100) { // NaN too
			return nil, usagef("invalid percentile %q in --percentiles: expected numbers above 0 and up to 100, like 50,99,99.9", strings.TrimSpace(f))
		}
		out = append(out, q)
	}
	return out, nil
}

// randomSeed is the seed set by --random-seed or PGBENCH_RANDOM_SEED, or
// else the run id's for a part of a run (the same on every worker, so
// that their results merge), or else the time in microseconds, as
// pgbench's default.
func randomSeed(env *Env, o *options) uint64 {
	if o.seedSet {
		return o.seed
	}
	if id := fleetRunID(o); id != "" {
		return fleet.Seed(id)
	}
	return uint64(env.Now().UnixMicro())
}

// envSeed applies PGBENCH_RANDOM_SEED before the options, as pgbench does.
func envSeed(env *Env, o *options) error {
	if s := env.Getenv("PGBENCH_RANDOM_SEED"); s != "" {
		return o.setSeed(s, "PGBENCH_RANDOM_SEED environment variable")
	}
	return nil
}

// setSeed applies a seed setting ("time", "rand" or an unsigned integer)
// and announces it on stderr, as pgbench's set_random_seed does; from
// names the setting in the error.
func (o *options) setSeed(s, from string) error {
	var seed uint64
	switch s {
	case "time":
		seed = uint64(o.env.Now().UnixMicro())
	case "rand":
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return usagef("could not generate random seed\ngbench: error: error while setting random seed from %s", from)
		}
		seed = binary.LittleEndian.Uint64(b[:])
	default:
		n, ok := parseSeed(s)
		if !ok {
			return usagef("unrecognized random seed option \"%s\"\ngbench: detail: Expecting an unsigned integer, \"time\" or \"rand\".\ngbench: error: error while setting random seed from %s", s, from)
		}
		seed = n
	}
	o.seed, o.seedSet = seed, true
	fmt.Fprintf(o.env.Stderr, "gbench: setting random seed to %d\n", seed)
	return nil
}

// parseSeed reads an unsigned integer the way pgbench's
// sscanf("%lu%c") does: leading blanks and a sign are accepted (a minus
// wraps around), nothing may follow, and overflow gives the largest value.
func parseSeed(s string) (uint64, bool) {
	t := strings.TrimLeft(s, cnum.Space)
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if t == "" || strings.TrimLeft(t, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseUint(t, 10, 64)
	switch {
	case err != nil:
		return math.MaxUint64, true
	case neg:
		return -n, true
	}
	return n, true
}

// connsPerClient is how many server connections each client opens.
func connsPerClient(p *script.Program) int {
	n := 0
	if p.HasSQL {
		n++
	}
	if p.HasRESP {
		n++
	}
	return max(n, 1)
}

// connectors configures the SQL and RESP connections the program needs.
func (b *benchSetup) connectors(env *Env, o *options) error {
	p := b.cfg.Program
	if p.HasSQL {
		c, err := pgConfig(o)
		if err != nil {
			return err
		}
		b.pg = c
		b.cfg.SQL = pgsql.Connector(c)
	}
	if p.HasRESP {
		u := o.resp
		if u == "" {
			u = env.Getenv("GBENCH_RESP")
		}
		if u == "" {
			u = "redis://127.0.0.1:6379/0"
		}
		ro, err := resp.ParseURL(u)
		if err != nil {
			return usagef("%v", err)
		}
		b.cfg.RESP = resp.Connector(ro)
		b.respOptions = ro
	}
	return nil
}

// respConnector dials Redis-protocol connections.
// signalContext is cancelled by the first interrupt (Ctrl-C or SIGTERM):
// clients then start no new transaction, running ones finish, and the run
// ends with a summary of what completed. The returned channel is closed by
// a second interrupt, which aborts the clients at once.
func signalContext(env *Env) (context.Context, <-chan struct{}, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	hard := make(chan struct{})
	if env.Signals == nil {
		return ctx, hard, cancel
	}
	ch := make(chan os.Signal, 2)
	env.Signals(ch)
	stop := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-stop:
			return
		}
		select {
		case <-ch:
			close(hard)
		case <-stop:
		}
	}()
	return ctx, hard, func() { close(stop); cancel() }
}

// transportName is the banner's name of the run's transport, with the
// reason a faster one was refused.
func (b *benchSetup) transportName() string {
	if b.transportNote != "" {
		return b.cfg.Transport.String() + "; " + b.transportNote
	}
	return b.cfg.Transport.String()
}

// prepareServer connects for setup like pgbench: prints the versions,
// reads the scale for builtin scripts, and vacuums unless -n.
func (b *benchSetup) prepareServer(ctx context.Context, env *Env, o *options) int {
	conn, err := b.pg.OpenNotices(ctx, env.Stderr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\n", connError(b.pg, err))
		fmt.Fprintf(env.Stderr, "gbench: error: could not create connection for setup\n")
		return exitUsage
	}
	defer conn.Close()
	b.serverVersion = conn.Parameter("server_version")
	fmt.Fprintf(env.Stdout, "gbench (%s, server %s, transport %s)\n", version, b.serverVersion, b.transportName())
	if b.builtin {
		if err := b.tableInfo(ctx, env, conn); err != nil {
			return fail(env, err)
		}
	}
	if !o.noVacuum && o.workerIndex == 0 {
		// One run vacuums once: worker 0 does, before it meets the others.
		b.vacuum(ctx, env, conn, o.vacuumAll)
	}
	return exitOK
}

// finish prints the results and returns the exit status.
func (b *benchSetup) finish(env *Env, o *options, res *engine.Result) int {
	b.summary.Config, b.summary.Result = report.RunConfigOf(b.cfg), report.RunResultOf(res)
	if b.summary.Scale == 0 {
		b.summary.Scale = b.cfg.Scale
	}
	b.summary.FailuresDetailed = o.failuresDetailed
	b.summary.Percentiles = b.percentiles
	b.summary.RESPStats = o.respStats
	b.summary.Layout = o.pgbenchOutput
	if err := report.Text(env.Stdout, &b.summary); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: writing the summary: %v\n", err)
		return exitRun
	}
	b.fleet.report(env, b.cfg, res)
	writeWaits(env.Stdout, b.waitEvents, b.waitEventsNote)
	if b.warmup != nil {
		if err := report.WriteWarmup(env.Stdout, b.warmup); err != nil {
			fmt.Fprintf(env.Stderr, "gbench: error: writing the summary: %v\n", err)
			return exitRun
		}
	}
	gateCode := b.gates.check(env, &b.summary)
	code := exitOK
	if b.activity != nil {
		warnActivity(env, "the run", b.activity)
	}
	for _, err := range res.Errs {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		code = exitRun
	}
	if err := b.writeOutputs(res); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		code = exitRun
	}
	if res.Aborted > 0 {
		fmt.Fprintf(env.Stderr, "gbench: error: Run was aborted; the above results are incomplete.\n")
		return exitRun
	}
	if res.Interrupted && b.gates.stopped() == nil {
		fmt.Fprintf(env.Stderr, "gbench: Run was interrupted; the results cover the transactions completed before the interrupt.\n")
		return exitRun
	}
	if code == exitOK {
		code = gateCode
	}
	return code
}

// shellStdout is where \shell output goes: standard output, as pgbench's,
// unless the JSON result is written there.
func shellStdout(env *Env, o *options) io.Writer {
	if o.jsonOut == "-" {
		return env.Stderr
	}
	return env.Stdout
}
