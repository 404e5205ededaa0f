package matrix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/result/schema"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/script"
)

// engineConfig is the engine's configuration for one run of a slot: for
// d, or for requests shared by its connections when d is 0.
func (r *runner) engineConfig(sl *slot, d time.Duration, requests int64) (*engine.Config, error) {
	p := sl.path
	prog, err := r.program(p, sl.mix, sl.keys)
	if err != nil {
		return nil, err
	}
	cfg := &engine.Config{
		Program: prog, Clients: sl.conns, Threads: min(r.cfg.Threads, sl.conns), Duration: d, TotalTransactions: requests,
		Rate: sl.rate, MaxTries: 1, Seed: sl.seed, Scale: 1, HardStop: r.cfg.HardStop, Transport: r.cfg.Transport,
		Defines: []engine.Define{{Name: "items", Value: strconv.Itoa(r.data.Items)}},
	}
	if r.cfg.NoKeys {
		cfg.Defines = append(cfg.Defines, engine.Define{Name: "keys", Value: strconv.Itoa(r.data.KVKeys)})
		if r.data.Sessions > 0 {
			cfg.Defines = append(cfg.Defines, engine.Define{Name: "sessions", Value: strconv.Itoa(r.data.Sessions)})
		}
		if r.data.YCSBRecords > 0 {
			cfg.Defines = append(cfg.Defines, engine.Define{Name: "recordcount", Value: strconv.Itoa(r.data.YCSBRecords)})
		}
	}
	// A path of both kinds counts its SQL reads' hits with its \resp
	// commands' (pgsql.RowsConnector): only per-command statistics tell
	// the \resp counters apart (respCounters).
	cfg.PerCommand = prog.HasSQL && prog.HasRESP
	ps := r.byPath[p.Name]
	if prog.HasSQL {
		if w := newWarmSQL(ps.pg.pgCfg, prog, sl.keys); w != nil {
			cfg.SQL = pgsql.RowsConnector(w)
		} else {
			cfg.SQL = pgsql.RowsConnector(ps.pg.pgCfg)
		}
	}
	if prog.HasRESP {
		cfg.RESP = resp.Connector(respConnector{*ps.redis.respOpt})
	}
	return cfg, cfg.Validate()
}

// runSample measures one sample.
func (r *runner) runSample(ctx context.Context, i int, sl slot) schema.Sample {
	s := schema.Sample{Order: i, Path: sl.path.Name, Mix: mixName(sl.mix), Keys: sl.keys, Connections: sl.conns, Rate: sl.rate,
		Repeat: sl.repeat, Start: r.cfg.Now(), RandomSeed: sl.seed}
	cfg, err := r.engineConfig(&sl, r.cfg.Duration, r.cfg.Requests)
	if err == nil {
		err = r.reset(ctx, sl.path)
	}
	if err != nil {
		s.Error = err.Error()
		return s
	}
	var errOut capture
	cfg.Stderr = &errOut
	first, others := r.byPath[sl.path.Name].cost(sl.path)
	m := newMeasure(first.probe(), r.prober, r.cfg.Duration, r.cfg.Interval)
	m.waitInterval = r.cfg.WaitInterval
	for _, o := range others {
		m.add(o.probe())
	}
	if sl.path.Cached != nil {
		m.cached = r.cachedReader(sl.path)
	}
	m.begin(ctx)
	cfg.OnProgress, cfg.Tick = m.onProgress, m.tick
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		s.Error = "could not run: " + err.Error()
		m.end(context.WithoutCancel(ctx), &s)
		return s
	}
	m.stopSampling() // the sample's end point, and the samplers' CPU in probeCPU
	fillSample(&s, res, m.probeCPU)
	s.RESP = respCounters(res, cfg.Program)
	s.Error = sampleError(res, errOut.String())
	m.end(context.WithoutCancel(ctx), &s)
	s.Load1 = runenv.LoadAverage()[0]
	return s
}

// reset runs the path's reset script once, on one connection, before a
// sample; its failure fails the sample.
func (r *runner) reset(ctx context.Context, p *Path) error {
	if p.Reset == nil {
		return nil
	}
	sc, err := parseScript(p.Reset)
	if err != nil {
		return err
	}
	prog, err := script.Compile([]*script.Script{sc}, script.Simple, matrixVars)
	if err != nil {
		return err
	}
	ps := r.byPath[p.Name]
	cfg := &engine.Config{Program: prog, Clients: 1, Threads: 1, Transactions: 1, MaxTries: 1, Scale: 1, Transport: r.cfg.Transport,
		Defines: []engine.Define{{Name: "items", Value: strconv.Itoa(r.data.Items)}}}
	if prog.HasSQL {
		cfg.SQL = pgsql.Connector(ps.pg.pgCfg)
	}
	if prog.HasRESP {
		cfg.RESP = resp.Connector(respConnector{*ps.redis.respOpt})
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	var errOut capture
	cfg.Stderr = &errOut
	res, err := engine.Run(ctx, cfg)
	if err == nil {
		if msg := sampleError(res, errOut.String()); msg != "" {
			err = errors.New(msg)
		}
	}
	if err != nil {
		return fmt.Errorf("the reset before the sample failed: %w", err)
	}
	return nil
}

// fillSample copies the engine's figures into s.
func fillSample(s *schema.Sample, res *engine.Result, probeCPU time.Duration) {
	t := res.Stats.Total
	s.BenchS, s.ConnectS = res.Bench.Seconds(), res.ConnElapsed.Seconds()
	s.Requests, s.Failures, s.Aborted = t.Cnt, t.Failures(), res.Aborted
	total, _ := res.Unavailable()
	s.ConnectionFailures, s.UnavailableS = t.ConnectionFailures, total.Seconds()
	s.Interrupted = res.Interrupted
	if s.BenchS > 0 {
		s.ReqS = float64(t.Cnt) / s.BenchS
	}
	s.Latency = newLatency(t)
	// The hit rate obtained: the engine counts RESP GET-like replies and
	// (pgsql.RowsConnector) SELECT results with and without rows.
	if c := res.Stats.Cache; c.Hits+c.Misses > 0 {
		s.Reads = &schema.Reads{Hits: c.Hits, Misses: c.Misses, HitRatio: float64(c.Hits) / float64(c.Hits+c.Misses)}
	}
	user, sys := res.UserCPU, res.SysCPU
	// The probes ran on one thread of this process; take their time out of
	// user and system time in proportion.
	if total := user + sys; total > 0 {
		probe := min(probeCPU, total)
		user -= time.Duration(float64(probe) * float64(user) / float64(total))
		sys = max(total-probe-user, 0)
	}
	s.Client = schema.Client{UserS: user.Seconds(), SysS: sys.Seconds(), ProbeS: probeCPU.Seconds()}
	if n := s.Requests + s.Failures; n > 0 {
		s.Client.CPUUsPerReq = (user + sys).Seconds() * 1e6 / float64(n)
	}
}

// respCounters are the \resp cache counters of a run of prog: the run's
// totals when prog has no SQL, else the sum of its \resp commands' (the
// run then kept per-command statistics); nil when prog has no \resp
// command.
func respCounters(res *engine.Result, prog *script.Program) *schema.RESPCounters {
	if !prog.HasRESP {
		return nil
	}
	c := res.Stats.Cache
	if prog.HasSQL && res.Stats.Commands != nil {
		c = stats.Cache{}
		for i, sc := range prog.Scripts {
			for j, cmd := range sc.Commands {
				if cmd.RESP != nil {
					c.Add(&res.Stats.Commands[i][j].Cache)
				}
			}
		}
	}
	out := &schema.RESPCounters{Hits: c.Hits, Misses: c.Misses, FieldHits: c.FieldHits, FieldMisses: c.FieldMisses,
		BytesSent: c.BytesSent, BytesReceived: c.BytesRecv}
	if n := res.Stats.Total.Cnt + res.Stats.Total.Failures(); n > 0 {
		out.HitsPerReq = float64(c.Hits) / float64(n)
		out.BytesSentPerReq, out.BytesReceivedPerReq = float64(c.BytesSent)/float64(n), float64(c.BytesRecv)/float64(n)
	}
	return out
}

// newLatency summarises the latencies of the successful requests.
func newLatency(t *stats.Txn) schema.Latency {
	h := t.Hist
	l := schema.Latency{
		MeanUs: t.Latency.Mean(), StddevUs: t.Latency.Stddev(),
		P50Us: h.Quantile(50), P90Us: h.Quantile(90), P99Us: h.Quantile(99), P999Us: h.Quantile(99.9),
		MaxUs: h.Max(),
	}
	if enc, err := h.Raw().Encode(hdr.V2CompressedEncodingCookieBase); err == nil {
		l.HDR = string(enc)
	}
	return l
}

// sampleError says why a sample failed, or "" when it did not.
func sampleError(res *engine.Result, stderr string) string {
	t := res.Stats.Total
	var msg string
	switch {
	case res.Aborted > 0:
		msg = fmt.Sprintf("%d clients aborted", res.Aborted)
	case t.Failures() > 0:
		msg = fmt.Sprintf("%d requests failed", t.Failures())
	case len(res.Errs) > 0:
		msg = res.Errs[0].Error()
	case t.Cnt == 0 && !res.Interrupted:
		msg = "no request completed"
	default:
		return ""
	}
	if line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n"); line != "" {
		msg += ": " + line
	}
	return msg
}

// probesFor returns the probes of the servers p talks to.
func (r *runner) probesFor(p *Path) []probe {
	first, others := r.byPath[p.Name].cost(p)
	out := []probe{first.probe()}
	for _, o := range others {
		out = append(out, o.probe())
	}
	return out
}

// capture keeps the start of what the engine writes to its Stderr (client
// aborts), for the sample's error.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

const captureLimit = 4 << 10

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := captureLimit - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
