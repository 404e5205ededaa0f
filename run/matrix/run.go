package matrix

import (
	"context"
	"errors"
	"fmt"
	"github.com/gbench/gbench/result/schema"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// ErrContract is wrapped by the error Run returns when the read paths do
// not return the same values.
var ErrContract = errors.New("contract check failed")

// runner is the state of one Run.
type runner struct {
	cfg Config
	res *schema.Result
	// all are the servers the run talks to; planPG and planRedis the
	// plan's (nil when no path uses them); byPath each path's.
	all               []*server
	planPG, planRedis *server
	byPath            map[string]pathServers
	prober            *prober
	programs          map[progKey]*script.Program
	data              workloads.Dataset
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
	defer r.close()
	if err := r.servers(setupCtx); err != nil {
		return r.res, r.stopped(setupCtx, err)
	}
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

func (r *runner) close() {
	for _, s := range r.all {
		s.close()
	}
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

// planConns are the plan's PostgreSQL and Redis connections, nil for a
// server no path uses.
func (r *runner) planConns() (*pgsql.Client, net.Conn) {
	var pg *pgsql.Client
	var redis net.Conn
	if r.planPG != nil {
		pg = r.planPG.pg
	}
	if r.planRedis != nil {
		redis = r.planRedis.redis
	}
	return pg, redis
}

// setup loads the data, checks the contract, describes the servers and
// warms up.
func (r *runner) setup(ctx context.Context) error {
	pg, redis := r.planConns()
	if r.cfg.Load {
		d := r.cfg.Data
		if pg == nil && redis == nil {
			return errors.New("nothing to load the dataset into: every path has servers of its own")
		}
		r.logf("loading the dataset (%d items of %d bytes)", or(d.Items, workloads.DefaultItems), or(d.ValueSize, workloads.DefaultValueSize))
		if err := workloads.LoadLog(ctx, pg, redis, d, logWriter{r}); err != nil {
			return err
		}
	}
	if err := r.dataset(ctx); err != nil {
		return err
	}
	if err := r.contract(ctx); err != nil {
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

// datasetServers are the servers the dataset is read from: the plan's,
// or when every path has its own, the first path's.
func (r *runner) datasetServers() (pg, redis *server) {
	pg, redis = r.planPG, r.planRedis
	if pg == nil && redis == nil && len(r.all) > 0 {
		if r.all[0].pg != nil {
			return r.all[0], nil
		}
		return nil, r.all[0]
	}
	return pg, redis
}

// datasetConns are the connections of datasetServers.
func (r *runner) datasetConns() (*pgsql.Client, net.Conn) {
	var pg *pgsql.Client
	var redis net.Conn
	ps, rs := r.datasetServers()
	if ps != nil {
		pg = ps.pg
	}
	if rs != nil {
		redis = rs.redis
	}
	return pg, redis
}

// dataset reads the size of the loaded dataset; random keys are drawn
// from 1..items.
func (r *runner) dataset(ctx context.Context) error {
	pg, redis := r.datasetConns()
	d, err := workloads.ReadDataset(ctx, pg, redis)
	if err != nil {
		return fmt.Errorf("reading the dataset: %w", err)
	}
	if want := r.cfg.Data.Items; want != 0 && want != d.Items {
		return fmt.Errorf("the servers hold %d items, not %d: load them with --load or leave out --items", d.Items, want)
	}
	if want := r.cfg.Data.ValueSize; want != 0 && want != d.ValueSize {
		return fmt.Errorf("the servers hold values of %d bytes, not %d: load them with --load or leave out --value-size", d.ValueSize, want)
	}
	if want := r.cfg.Data.Sessions; want != 0 && want != d.Sessions {
		return fmt.Errorf("the servers hold %d sessions, not %d: load them with --load or leave out --sessions", d.Sessions, want)
	}
	if want := r.cfg.Data.Keys; want != 0 && want != d.KVKeys {
		return fmt.Errorf("the servers hold %d kv keys, not %d: load them with --load or leave out --keyspace", d.KVKeys, want)
	}
	if r.cfg.HotRows > d.Items {
		return fmt.Errorf("the plan reads %d hot rows, and the servers hold %d items", r.cfg.HotRows, d.Items)
	}
	r.data = d
	r.res.Plan.Items, r.res.Plan.ValueSize = d.Items, d.ValueSize
	if r.cfg.NoKeys {
		r.res.Plan.KVKeys, r.res.Plan.Sessions = d.KVKeys, d.Sessions
	}
	return nil
}

// contract checks, with workloads.Check, that every path that reads values
// back answers as the dataset holds them, and records the outcome.
//
// The check's SQL runs on connections of its own, closed (and their
// backends gone) before the samples: a backend flushes its statistics a
// second or more after its transactions, and the check's hundreds would
// otherwise land in the first sample's pg_stat_database counters.
func (r *runner) contract(ctx context.Context) error {
	cc := &checkConns{r: r, ctx: ctx, pg: map[*server]*pgsql.Client{}}
	defer cc.close()
	readers, err := r.readers(cc)
	if err != nil {
		return err
	}
	r.res.Contract.Checked = true
	if len(readers) == 1 {
		r.res.Contract.Passed = true
		r.logf("contract check: no path reads values back (contract = none)")
		return r.save()
	}
	err = workloads.Check(ctx, r.data.Items, readers)
	if err == nil {
		r.res.Contract.Passed = true
		r.logf("contract check passed: %s return the values of the dataset in request order", strings.Join(r.res.Contract.Paths, ", "))
		return r.save()
	}
	if ctx.Err() != nil {
		return err
	}
	r.res.Contract.Error = err.Error()
	_ = r.save() // the failure is worth keeping; the contract error says more than a write error
	return fmt.Errorf("%w: the paths do not return the same values, so their speeds cannot be compared; nothing was measured:\n%v", ErrContract, err)
}

// readers are the contract check's readers: the dataset's first, then
// every path's that reads values back.
func (r *runner) readers(cc *checkConns) ([]workloads.Reader, error) {
	ps, rs := r.datasetServers()
	var dataset workloads.Reader
	if ps != nil {
		pg, err := cc.open(ps)
		if err != nil {
			return nil, err
		}
		dataset = workloads.DatasetReader(pg, nil)
	} else {
		dataset = workloads.DatasetReader(nil, rs.redis)
	}
	readers := []workloads.Reader{dataset}
	for i := range r.cfg.Paths {
		p := &r.cfg.Paths[i]
		if p.Contract == workloads.ReadNone {
			continue
		}
		rd, err := r.reader(p, cc)
		if err != nil {
			return nil, err
		}
		readers = append(readers, rd)
		r.res.Contract.Paths = append(r.res.Contract.Paths, p.Name)
	}
	return readers, nil
}

// reader is the contract check's reader of a path: its contract command
// with the keys put in, on the path's server.
func (r *runner) reader(p *Path, cc *checkConns) (workloads.Reader, error) {
	cmd, err := contractCommand(p)
	if err != nil {
		return workloads.Reader{}, fmt.Errorf("path %s: %w", p.Name, err)
	}
	ps, items := r.byPath[p.Name], r.data.Items
	if p.Contract.SQL() {
		pg, err := cc.open(ps.pg)
		if err != nil {
			return workloads.Reader{}, err
		}
		return workloads.SQLReader(p.Name, pg, func(keys []int64) string { return cmd.sql(keys, items) }, p.Contract), nil
	}
	return workloads.RESPReader(p.Name, ps.redis.redis, func(keys []int64) []string { return cmd.args(keys, items) }), nil
}

// checkConns are the contract check's PostgreSQL connections, one per
// server.
type checkConns struct {
	r   *runner
	ctx context.Context
	pg  map[*server]*pgsql.Client
}

// open returns the check's connection to s, opening it the first time.
func (cc *checkConns) open(s *server) (*pgsql.Client, error) {
	if c, ok := cc.pg[s]; ok {
		return c, nil
	}
	s.pgProbe.mark()
	c, err := s.pgCfg.Open(cc.ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to PostgreSQL%s for the contract check: %w", s.of(), err)
	}
	cc.pg[s] = c
	return c, nil
}

// close closes the connections and waits until their backends are gone.
func (cc *checkConns) close() {
	for s, c := range cc.pg {
		c.Close()
		if !s.pgProbe.settle(context.WithoutCancel(cc.ctx)) {
			cc.r.logf("the contract check's connections were still open on %s %v after it ended", s.name, settleTimeout)
		}
	}
}

// cpuSource describes where a server's CPU time is read.
func cpuSource(cgroup, otherwise string) string {
	if cgroup != "" {
		return "cgroup " + cgroup
	}
	return otherwise
}

// warmup reads every heap page of gbench.items once, then runs each path
// for Config.Warmup at the largest connection count and key count (its
// first mix, unthrottled), so that the first sample pays neither for cold
// buffers nor for a cold client. Its figures are recorded but are not
// results. A failure stops the run: the samples at that connection count
// would fail the same way.
func (r *runner) warmup(ctx context.Context) error {
	if r.cfg.Warmup <= 0 {
		return nil
	}
	if pg, _ := r.planConns(); pg != nil {
		if _, err := pg.QueryText(ctx, "SELECT count(v) FROM "+workloads.ItemsTable); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	conns, keys := r.cfg.maxConnections(), slices.Max(r.cfg.keyList())
	for i := range r.cfg.Paths {
		p := &r.cfg.Paths[i]
		sl := slot{path: p, mix: r.cfg.mixList()[0], keys: keys, conns: conns, seed: r.cfg.Seed}
		cfg, err := r.engineConfig(&sl, r.cfg.Warmup, 0)
		if err != nil {
			return err
		}
		var errOut capture
		cfg.Stderr = &errOut
		probes := r.probesFor(p)
		for _, pb := range probes {
			pb.mark()
		}
		res, err := engine.Run(ctx, cfg)
		for _, pb := range probes {
			pb.settle(ctx) // the warm-up's backends must not exit during the first sample
		}
		if err == nil {
			if msg := sampleError(res, errOut.String()); msg != "" {
				err = errors.New(msg)
			}
		}
		if err == nil && res.Interrupted {
			err = ctx.Err()
		}
		if err != nil {
			return fmt.Errorf("warm-up of %s%s at %d connections failed: %w", p.Name, keysText(keys), conns, err)
		}
		w := schema.Warmup{Path: p.Name, Keys: keys, Connections: conns, BenchS: res.Bench.Seconds(), Requests: res.Stats.Total.Cnt}
		r.res.Warmup = append(r.res.Warmup, w)
		r.logf("warm-up %s%s conns=%d: %.0f req/s", p.Name, keysField(keys), conns, float64(w.Requests)/max(w.BenchS, 1e-9))
	}
	return nil
}

// keysText says " with N keys" for messages, "" without keys.
func keysText(keys int) string {
	if keys == 0 {
		return ""
	}
	return fmt.Sprintf(" with %d keys", keys)
}

// keysField says " keys=N" for progress lines, "" without keys.
func keysField(keys int) string {
	if keys == 0 {
		return ""
	}
	return fmt.Sprintf(" keys=%d", keys)
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
	if gs, gerr := r.res.CheckCells(); gerr == nil {
		r.res.Thresholds = gs
	} else if err == nil {
		err = gerr
	}
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
		r.logf("[%d/%d] %s repeat=%d: try %d failed: %s; trying again in %v",
			i+1, n, cellText(&s), s.Repeat, len(tries), s.Error, wait)
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
// down.
func (r *runner) reconnect(ctx context.Context) {
	for _, s := range r.all {
		s.reconnect(ctx)
	}
}

// report writes a sample's progress line, with the time the run has taken
// and an estimate of the time left from the samples so far.
func (r *runner) report(i, n int, s *schema.Sample, start time.Time) {
	elapsed := time.Since(start)
	left := time.Duration(float64(elapsed) / float64(i+1) * float64(n-i-1))
	head := fmt.Sprintf("[%d/%d %s, ~%s left] %s repeat=%d", i+1, n,
		elapsed.Round(time.Second), left.Round(time.Second), cellText(s), s.Repeat)
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

// cellText names a sample's cell in progress lines: "sql-mget keys=16
// conns=64", with the mix and the rate when the plan has them.
func cellText(s *schema.Sample) string {
	t := s.Path
	if s.Mix != "" {
		t += fmt.Sprintf(" mix=%q", s.Mix)
	}
	t += keysField(s.Keys) + fmt.Sprintf(" conns=%d", s.Connections)
	if s.Rate > 0 {
		t += fmt.Sprintf(" rate=%g", s.Rate)
	}
	return t
}
