package matrix

import (
	"bytes"
	"context"
	"fmt"
	"github.com/gbench/gbench/engine/matrix/schema"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/runenv"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// progKey identifies a compiled script.
type progKey struct {
	path string
	keys int
}

// program compiles, once, the script of a read of keys keys on p.
func (r *runner) program(p workloads.Path, keys int) (*script.Program, error) {
	k := progKey{p.Name, keys}
	if prog, ok := r.programs[k]; ok {
		return prog, nil
	}
	name := p.File(keys, r.cfg.RandomKeys)
	if name == "" {
		name = fmt.Sprintf("%s-%d", p.Name, keys)
	}
	s, err := script.Parse(name, p.Script(keys, r.cfg.RandomKeys), 1)
	if err != nil {
		return nil, err
	}
	prog, err := script.Compile([]*script.Script{s}, p.Mode, p.Defines(r.cfg.RandomKeys))
	if err != nil {
		return nil, err
	}
	r.programs[k] = prog
	return prog, nil
}

// engineConfig is the engine's configuration for one run of a path.
func (r *runner) engineConfig(p workloads.Path, keys, conns int, d time.Duration, seed uint64) (*engine.Config, error) {
	prog, err := r.program(p, keys)
	if err != nil {
		return nil, err
	}
	cfg := &engine.Config{
		Program: prog, Clients: conns, Threads: min(r.cfg.Threads, conns), Duration: d,
		MaxTries: 1, Seed: seed, Scale: 1, HardStop: r.cfg.HardStop, Transport: r.cfg.Transport,
	}
	if p.SQL {
		if w := newWarmSQL(r.cfg.PG, prog, keys); w != nil {
			cfg.SQL = w
		} else {
			cfg.SQL = r.cfg.PG
		}
	}
	if p.RESP {
		cfg.RESP = respConnector{r.cfg.RESP}
	}
	if r.cfg.RandomKeys {
		cfg.Defines = []engine.Define{{Name: "items", Value: strconv.Itoa(r.items)}}
	}
	return cfg, nil
}

// runSample measures one sample.
func (r *runner) runSample(ctx context.Context, i int, sl slot) schema.Sample {
	s := schema.Sample{Order: i, Path: sl.path.Name, Keys: sl.keys, Connections: sl.conns, Repeat: sl.repeat,
		Start: r.cfg.Now(), RandomSeed: sl.seed}
	cfg, err := r.engineConfig(sl.path, sl.keys, sl.conns, r.cfg.Duration, sl.seed)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	var errOut capture
	cfg.Stderr = &errOut
	m := newMeasure(r.probeFor(sl.path), r.prober, r.cfg.Duration)
	m.begin(ctx)
	cfg.OnProgress, cfg.Tick = m.onProgress, m.tick
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		s.Error = "could not run: " + err.Error()
		s.Server = m.end(context.WithoutCancel(ctx))
		return s
	}
	fillSample(&s, res, m.probeCPU)
	s.Error = sampleError(res, errOut.String())
	s.Server = m.end(context.WithoutCancel(ctx))
	s.Load1 = runenv.LoadAverage()[0]
	return s
}

// fillSample copies the engine's figures into s.
func fillSample(s *schema.Sample, res *engine.Result, probeCPU time.Duration) {
	t := res.Stats.Total
	s.BenchS, s.ConnectS = res.Bench.Seconds(), res.ConnElapsed.Seconds()
	s.Requests, s.Failures, s.Aborted = t.Cnt, t.Failures(), res.Aborted
	s.Interrupted = res.Interrupted
	if s.BenchS > 0 {
		s.ReqS = float64(t.Cnt) / s.BenchS
	}
	s.Latency = newLatency(t)
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

// probeFor returns the probe of the server p reads from.
func (r *runner) probeFor(p workloads.Path) probe {
	if p.RESP {
		return r.redisProbe
	}
	return r.pgProbe
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
