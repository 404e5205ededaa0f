package series

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/run/runenv"
)

// Runner measures runs: each one an in-process engine.Run of the
// configuration Engine returns, with the servers' counters read around
// it. Its fields are set before the first call and not changed after.
type Runner struct {
	// Engine returns the engine configuration of one run of l lasting d
	// with the random seed seed. The runner replaces its Stderr.
	Engine func(l Load, d time.Duration, seed uint64) (*engine.Config, error)
	// Prepare, when set, runs before each run, outside the measured
	// window: a VACUUM, the server settings of an A/B variant. An error
	// fails the run.
	Prepare func(ctx context.Context, l Load) error
	// Probe, when set, returns the probe that reads the counters of l's
	// servers around its runs; nil for none.
	Probe func(l Load) *runenv.Probe
	// Duration of each run and of the warm-up.
	Duration, Warmup time.Duration
	// Progress receives one line per run; nil discards.
	Progress io.Writer
	// Name heads the progress lines ("gbench curve").
	Name string
}

// Measure runs l once for r.Duration and returns what it measured. A run
// that could not start, whose clients aborted or that completed nothing
// has an Error; one cut short by the end of ctx is Interrupted.
func (r *Runner) Measure(ctx context.Context, l Load, seed uint64) Run {
	run, _ := r.run(ctx, l, r.Duration, seed)
	return run
}

// WarmUp runs l for r.Warmup, when it is positive, so that the first
// measured run pays neither for cold caches nor for a cold client. The
// run is returned for the record; it is not a result.
func (r *Runner) WarmUp(ctx context.Context, l Load, seed uint64) (Run, bool) {
	if r.Warmup <= 0 {
		return Run{}, false
	}
	w, _ := r.run(ctx, l, r.Warmup, seed)
	r.logf("warm-up %s: %s", l, Line(&w))
	return w, true
}

// run measures one run; the error is Prepare's, which the run's Error
// also holds: the runs after it would fail the same way.
func (r *Runner) run(ctx context.Context, l Load, d time.Duration, seed uint64) (Run, error) {
	run := Run{Load: l, Seed: seed, Start: time.Now()}
	if r.Prepare != nil {
		if err := r.Prepare(ctx, l); err != nil {
			run.Error = "preparing the run: " + err.Error()
			run.Interrupted = ctx.Err() != nil
			return run, err
		}
	}
	cfg, err := r.Engine(l, d, seed)
	if err != nil {
		run.Error = err.Error()
		return run, nil
	}
	var errOut capture
	cfg.Stderr = &errOut
	var probe *runenv.Probe
	if r.Probe != nil {
		probe = r.Probe(l)
	}
	if probe != nil {
		probe.Begin(ctx)
	}
	run.Start = time.Now()
	res, err := engine.Run(ctx, cfg)
	if probe != nil {
		run.Activity = probe.End(context.WithoutCancel(ctx))
		run.Warnings = run.Activity.Warnings()
	}
	if err != nil {
		run.Error = "could not run: " + err.Error()
		run.Interrupted = ctx.Err() != nil
		return run, nil
	}
	fill(&run, res)
	run.Error = runError(res, errOut.String())
	return run, nil
}

// fill copies the engine's figures into run.
func fill(run *Run, res *engine.Result) {
	t := res.Stats.Total
	run.Start = res.Start
	run.BenchS, run.ConnectS = res.Bench.Seconds(), res.ConnElapsed.Seconds()
	run.Processed, run.Failed, run.Skipped, run.Late = t.Cnt, t.Failures(), t.Skipped, t.Late
	if run.BenchS > 0 {
		run.TPS = float64(t.Cnt) / run.BenchS
	}
	run.Latency = newLatency(t)
	if run.Open() {
		run.Lag = &Lag{MeanUs: t.Lag.Mean(), MaxUs: t.Lag.Max}
	}
	run.UserS, run.SysS = res.UserCPU.Seconds(), res.SysCPU.Seconds()
	run.Aborted, run.Interrupted = res.Aborted, res.Interrupted
	run.ConnectionFailures, run.Reconnects = t.ConnectionFailures, res.Stats.Reconnects
	total, _ := res.Unavailable()
	run.Outages, run.UnavailableS = len(res.Outages), total.Seconds()
}

// runError says why a run failed, or "" when it did not. Failed
// transactions do not fail a run: they are a figure (an SLO may bound
// them).
func runError(res *engine.Result, stderr string) string {
	var msg string
	switch t := res.Stats.Total; {
	case res.Aborted > 0:
		msg = fmt.Sprintf("%d clients aborted", res.Aborted)
	case len(res.Errs) > 0:
		msg = res.Errs[0].Error()
	case t.Cnt == 0 && t.Failures() == 0 && t.Skipped == 0 && !res.Interrupted:
		msg = "no transaction completed"
	default:
		return ""
	}
	if line, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n"); line != "" {
		msg += ": " + line
	}
	return msg
}

// logf writes one progress line.
func (r *Runner) logf(format string, args ...any) {
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, r.Name+": "+format+"\n", args...)
	}
}

// Line sums up a run in a few words for progress lines.
func Line(r *Run) string {
	switch {
	case r.Error != "":
		return "FAILED: " + r.Error
	case r.Interrupted:
		return "interrupted"
	}
	s := fmt.Sprintf("%.1f tps, p50 %s, p99 %s", r.TPS, Ms(float64(r.Latency.P50Us)), Ms(float64(r.Latency.P99Us)))
	if r.Lag != nil {
		s += fmt.Sprintf(", lag %s", Ms(r.Lag.MeanUs))
	}
	if n := r.Failed + r.Skipped; n > 0 {
		s += fmt.Sprintf(", %d failed, %d skipped", r.Failed, r.Skipped)
	}
	for _, w := range r.Warnings {
		s += "; WARNING: " + w
	}
	return s
}

// Ms writes microseconds as milliseconds with three significant digits
// at least: "0.412 ms", "12.5 ms", "1530 ms".
func Ms(us float64) string {
	ms := us / 1000
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	case ms >= 1:
		return fmt.Sprintf("%.2f ms", ms)
	}
	return fmt.Sprintf("%.3f ms", ms)
}

// capture keeps the start of what the engine writes to its Stderr
// (client aborts), for the run's error.
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

// Each measures the planned slots in order, appending each run to
// res.Runs, numbering it, and calling save after it (nil: no saving). It
// stops when ctx ends (the run cut short is kept, marked interrupted, and
// res.Interrupted is set), when Prepare fails (the failed run is kept) or
// when save fails, and returns that error.
func (r *Runner) Each(ctx context.Context, res *Result, slots []Slot, save func() error) error {
	for i, sl := range slots {
		if ctx.Err() != nil {
			res.Interrupted = true
			return nil
		}
		run, prepErr := r.run(ctx, res.Plan.Loads[sl.Point], r.Duration, sl.Seed)
		run.Order, run.Repeat = len(res.Runs), sl.Repeat
		res.Runs = append(res.Runs, run)
		r.logf("[%d/%d] %s repeat %d: %s", i+1, len(slots), run.Load, run.Repeat, Line(&run))
		if run.Interrupted {
			res.Interrupted = true
		}
		if save != nil {
			if err := save(); err != nil {
				return err
			}
		}
		if prepErr != nil && !res.Interrupted {
			return fmt.Errorf("%s: %w", run.Load, prepErr)
		}
		if res.Interrupted {
			return nil
		}
	}
	return nil
}
