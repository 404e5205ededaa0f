package matrix

import (
	"context"
	"errors"
	"fmt"
	"github.com/gbench/gbench/engine/matrix/schema"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/engine/runenv"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// ErrContract is wrapped by the error Run returns when the read paths do
// not return the same values.
var ErrContract = errors.New("contract check failed")

// runner is the state of one Run.
type runner struct {
	cfg        Config
	res        *schema.Result
	pg         *pgsql.Client
	redis      net.Conn
	pgProbe    *pgProbe
	redisProbe *redisProbe
	prober     *prober
	programs   map[progKey]*script.Program
	items      int
}

// Run runs the matrix c describes: it loads the dataset when asked, checks
// the contract, warms up, then measures every sample in a shuffled order.
//
// It returns an error when the run cannot start (no server, a failed load,
// a failed contract check (wrapping ErrContract), a failed warm-up): no
// sample was measured. Once samples run, a failed sample is recorded in
// the result (FailedSamples) and the run goes on; closing c.Stop ends the
// run after the current sample and cancelling ctx cuts the current one
// short, both leaving a partial, interrupted result. An error from c.Save
// also stops the run; Run then returns it with the result. The result is
// never nil.
func Run(ctx context.Context, c *Config) (*schema.Result, error) {
	cfg, err := c.withDefaults()
	if err != nil {
		return &schema.Result{Schema: schema.Version, Partial: true, Samples: []schema.Sample{}}, err
	}
	r := &runner{cfg: cfg, programs: map[progKey]*script.Program{}}
	r.res = &schema.Result{Schema: schema.Version, Partial: true, Start: cfg.Now(), Plan: cfg.plan(),
		Environment: machine(&cfg), Warmup: []schema.Warmup{}, Samples: []schema.Sample{}}
	setupCtx, cancel := stopContext(ctx, cfg.Stop)
	defer cancel()
	if err := r.connect(setupCtx); err != nil {
		return r.res, r.stopped(setupCtx, err)
	}
	defer r.close()
	r.prober = newProber()
	defer r.prober.stop()
	if err := r.setup(setupCtx); err != nil {
		return r.res, r.stopped(setupCtx, err)
	}
	return r.res, r.samples(ctx)
}

// stopContext returns a context that ends with ctx or when stop is
// closed: during set-up the first Ctrl-C stops everything.
func stopContext(ctx context.Context, stop <-chan struct{}) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	if stop != nil {
		go func() {
			select {
			case <-stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return ctx, cancel
}

// stopped marks the result interrupted when err comes from a stop.
func (r *runner) stopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		r.res.Interrupted = true
		return fmt.Errorf("interrupted before the first sample: %w", err)
	}
	return err
}

// connect opens the set-up and probe connections.
func (r *runner) connect(ctx context.Context) error {
	pg, err := r.cfg.PG.Open(ctx)
	if err != nil {
		return fmt.Errorf("cannot connect to PostgreSQL: %w", err)
	}
	redis, err := resp.Dial(ctx, r.cfg.RESP)
	if err != nil {
		pg.Close()
		return fmt.Errorf("cannot connect to Redis: %w", err)
	}
	r.pg, r.redis = pg, redis
	rc := resp.NewClient(redis)
	rc.SetTimeout(redisTimeout)
	r.redisProbe = &redisProbe{rc: rc, cgroup: r.cfg.RedisCgroup}
	r.pgProbe = &pgProbe{conn: pg, pm: r.cfg.PostgresPID, own: r.cfg.Sandbox, cgroup: r.cfg.PostgresCgroup,
		appName: pg.Parameter("application_name")}
	return nil
}

func (r *runner) close() {
	r.pg.Close()
	r.redis.Close()
}

// logf writes one progress line.
func (r *runner) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Progress, "gbench matrix: "+format+"\n", args...)
}

// logWriter writes each line it is given as a progress line.
type logWriter struct{ r *runner }

func (w logWriter) Write(b []byte) (int, error) {
	for line := range strings.Lines(string(b)) {
		w.r.logf("%s", strings.TrimSuffix(line, "\n"))
	}
	return len(b), nil
}

// save hands the result so far to Config.Save, its end time and load
// average brought up to date.
func (r *runner) save() error {
	r.res.End = r.cfg.Now()
	r.res.Environment.LoadEnd = runenv.LoadAverage()
	if r.cfg.Save == nil {
		return nil
	}
	return r.cfg.Save(r.res)
}

// setup loads the data, checks the contract, describes the servers and
// warms up.
func (r *runner) setup(ctx context.Context) error {
	if r.cfg.Load {
		d := r.cfg.Data
		r.logf("loading the dataset (%d items of %d bytes)", or(d.Items, workloads.DefaultItems), or(d.ValueSize, workloads.DefaultValueSize))
		if err := workloads.LoadLog(ctx, r.pg, r.redis, d, logWriter{r}); err != nil {
			return err
		}
	}
	if err := r.contract(ctx); err != nil {
		return err
	}
	if err := r.dataset(ctx); err != nil {
		return err
	}
	if err := r.describe(ctx); err != nil {
		return err
	}
	if err := r.warmup(ctx); err != nil {
		return err
	}
	return r.save()
}

// contract runs workloads.Contract and records its outcome.
func (r *runner) contract(ctx context.Context) error {
	err := workloads.Contract(ctx, r.pg, r.redis)
	if err == nil {
		r.res.Contract.Passed = true
		r.logf("contract check passed: every path returns the same values in request order")
		return r.save()
	}
	if ctx.Err() != nil {
		return err
	}
	r.res.Contract.Error = err.Error()
	_ = r.save() // the failure is worth keeping; the contract error says more than a write error
	return fmt.Errorf("%w: the read paths do not return the same values, so their speeds cannot be compared; nothing was measured:\n%v", ErrContract, err)
}

// dataset reads the size of the loaded dataset; random keys are drawn
// from 1..items.
func (r *runner) dataset(ctx context.Context) error {
	rows, err := r.pg.QueryText(ctx, "SELECT max(id), max(length(v)) FROM "+workloads.ItemsTable+" WHERE id >= 1")
	if err != nil {
		return fmt.Errorf("reading the dataset: %w", err)
	}
	items, _ := strconv.Atoi(rows[0][0])
	size, _ := strconv.Atoi(rows[0][1])
	if want := r.cfg.Data.Items; want != 0 && want != items {
		return fmt.Errorf("the servers hold %d items, not %d: load them with --load or leave out --items", items, want)
	}
	if want := r.cfg.Data.ValueSize; want != 0 && want != size {
		return fmt.Errorf("the servers hold values of %d bytes, not %d: load them with --load or leave out --value-size", size, want)
	}
	r.items = items
	r.res.Plan.Items, r.res.Plan.ValueSize = items, size
	return nil
}

// describe records the servers' versions and settings and finds the
// postmaster.
func (r *runner) describe(ctx context.Context) error {
	env := &r.res.Environment
	var err error
	if env.Postgres, err = describePostgres(ctx, r.pg, &r.cfg); err != nil {
		return fmt.Errorf("describing PostgreSQL: %w", err)
	}
	if env.Redis, err = describeRedis(r.redisProbe.rc, &r.cfg); err != nil {
		return fmt.Errorf("describing Redis: %w", err)
	}
	if r.pgProbe.pm == 0 {
		r.pgProbe.pm, r.pgProbe.note = findPostmaster(ctx, r.pg, r.cfg.PG.Host())
	}
	env.Postgres.CostNote = r.pgProbe.note
	env.Postgres.CPUSource, env.Redis.CPUSource = cpuSource(r.cfg.PostgresCgroup, "/proc"), cpuSource(r.cfg.RedisCgroup, "INFO cpu")
	if _, _, err := readTreeCPU(r.pgProbe.pm); r.pgProbe.pm != 0 && err != nil {
		r.pgProbe.pm, r.pgProbe.note = 0, fmt.Sprintf("cannot read the server's processes: %v", err)
		env.Postgres.CostNote = r.pgProbe.note
		env.Postgres.CPUSource, env.Redis.CPUSource = cpuSource(r.cfg.PostgresCgroup, "/proc"), cpuSource(r.cfg.RedisCgroup, "INFO cpu")
	}
	if note := env.Postgres.CostNote; note != "" {
		r.logf("PostgreSQL's CPU and memory will not be measured: %s", note)
	}
	return nil
}

// cpuSource describes where a server's CPU time is read.
func cpuSource(cgroup, otherwise string) string {
	if cgroup != "" {
		return "cgroup " + cgroup
	}
	return otherwise
}

// warmup reads every heap page of gbench.items once, then runs each path for
// Config.Warmup at the largest connection count and key count, so that
// the first sample pays neither for cold buffers nor for a cold client.
// Its figures are recorded but are not results. A failure stops the run:
// the samples at that connection count would fail the same way.
func (r *runner) warmup(ctx context.Context) error {
	if r.cfg.Warmup <= 0 {
		return nil
	}
	if _, err := r.pg.QueryText(ctx, "SELECT count(v) FROM "+workloads.ItemsTable); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	conns, keys := r.cfg.maxConnections(), slices.Max(r.cfg.Keys)
	for _, p := range r.cfg.Paths {
		cfg, err := r.engineConfig(p, keys, conns, r.cfg.Warmup, r.cfg.Seed)
		if err != nil {
			return err
		}
		var errOut capture
		cfg.Stderr = &errOut
		pb := r.probeFor(p)
		pb.mark()
		res, err := engine.Run(ctx, cfg)
		pb.settle(ctx) // the warm-up's backends must not exit during the first sample
		if err == nil {
			if msg := sampleError(res, errOut.String()); msg != "" {
				err = errors.New(msg)
			}
		}
		if err == nil && res.Interrupted {
			err = ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("warm-up of %s with %d keys at %d connections failed: %w", p.Name, keys, conns, err)
		}
		w := schema.Warmup{Path: p.Name, Keys: keys, Connections: conns, BenchS: res.Bench.Seconds(), Requests: res.Stats.Total.Cnt}
		r.res.Warmup = append(r.res.Warmup, w)
		r.logf("warm-up %s keys=%d conns=%d: %.0f req/s", p.Name, keys, conns, float64(w.Requests)/max(w.BenchS, 1e-9))
	}
	return nil
}

// samples measures every sample of the plan, in the shuffled order.
func (r *runner) samples(ctx context.Context) error {
	slots := order(&r.cfg)
	start := time.Now()
	for i, sl := range slots {
		if r.stopRequested(ctx) {
			break
		}
		s := r.trySample(ctx, i, len(slots), sl)
		r.res.Samples = append(r.res.Samples, s)
		if s.Failed() {
			r.res.FailedSamples++
		}
		r.report(i, len(slots), &s, start)
		if s.Interrupted {
			r.res.Interrupted = true
			break
		}
		if i < len(slots)-1 {
			if err := r.save(); err != nil {
				return r.finish(len(slots), err)
			}
		}
	}
	return r.finish(len(slots), nil)
}

// stopRequested reports whether Ctrl-C asked the run to stop, marking it
// interrupted.
func (r *runner) stopRequested(ctx context.Context) bool {
	select {
	case <-r.cfg.Stop:
		r.res.Interrupted = true
	default:
		if ctx.Err() != nil {
			r.res.Interrupted = true
		}
	}
	return r.res.Interrupted
}

// finish completes the result and saves it a last time.
func (r *runner) finish(planned int, err error) error {
	r.res.Partial = len(r.res.Samples) < planned || r.res.Interrupted || err != nil
	if serr := r.save(); err == nil {
		err = serr
	}
	return err
}

// trySample measures a sample, trying it again after a failure that may
// pass (a server restart, a dropped connection) up to Config.Retries
// times, with a pause that doubles each time. Every failed try is kept in
// the sample's Retries; a Ctrl-C ends the tries.
func (r *runner) trySample(ctx context.Context, i, n int, sl slot) schema.Sample {
	var tries []schema.Try
	wait := r.cfg.RetryWait
	for {
		s := r.runSample(ctx, i, sl)
		s.Retries = tries
		if !s.Failed() || s.Interrupted || len(tries) == r.cfg.Retries || r.stopRequested(ctx) {
			return s
		}
		tries = append(tries, schema.Try{Start: s.Start, Error: s.Error})
		r.logf("[%d/%d] %s keys=%d conns=%d repeat=%d: try %d failed: %s; trying again in %v",
			i+1, n, s.Path, s.Keys, s.Connections, s.Repeat, len(tries), s.Error, wait)
		if !r.pause(ctx, wait) {
			s.Retries = tries[:len(tries)-1]
			return s
		}
		wait *= 2
		r.reconnect(ctx)
	}
}

// pause waits for d, or until Ctrl-C; it reports whether the wait ran out.
func (r *runner) pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.cfg.Stop:
	case <-ctx.Done():
	}
	r.res.Interrupted = true
	return false
}

// reconnect opens the probe connections again when a fault took them
// down (a restarted server closes every connection), so that the next
// try's counters and settle work.
func (r *runner) reconnect(ctx context.Context) {
	if err := r.pg.Ping(ctx); err != nil {
		if pg, err := r.cfg.PG.Open(ctx); err == nil {
			r.pg.Close()
			r.pg, r.pgProbe.conn = pg, pg
		}
	}
	if _, _, err := r.redisProbe.rc.Call("PING"); err != nil {
		if conn, err := resp.Dial(ctx, r.cfg.RESP); err == nil {
			r.redis.Close()
			r.redis = conn
			r.redisProbe.rc = resp.NewClient(conn)
			r.redisProbe.rc.SetTimeout(redisTimeout)
		}
	}
}

// report writes a sample's progress line, with the time the run has taken
// and an estimate of the time left from the samples so far.
func (r *runner) report(i, n int, s *schema.Sample, start time.Time) {
	elapsed := time.Since(start)
	left := time.Duration(float64(elapsed) / float64(i+1) * float64(n-i-1))
	head := fmt.Sprintf("[%d/%d %s, ~%s left] %s keys=%d conns=%d repeat=%d", i+1, n,
		elapsed.Round(time.Second), left.Round(time.Second), s.Path, s.Keys, s.Connections, s.Repeat)
	if len(s.Retries) > 0 {
		head += fmt.Sprintf(" (try %d)", len(s.Retries)+1)
	}
	switch {
	case s.Failed():
		r.logf("%s: FAILED: %s", head, s.Error)
	case s.Interrupted:
		r.logf("%s: interrupted", head)
	default:
		line := fmt.Sprintf("%s: %.0f req/s, p99 %.3f ms", head, s.ReqS, float64(s.Latency.P99Us)/1000)
		switch {
		case s.Server != nil && s.Server.CPU != nil:
			line += fmt.Sprintf(", server %.1f us/req", s.Server.CPU.UsPerReq)
		case s.Server != nil && s.Server.CPUNote != "":
			line += ", server CPU — (" + s.Server.CPUNote + ")"
		}
		r.logf("%s", line)
	}
}
