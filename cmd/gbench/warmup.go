package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/output/report"
)

// warmUp is --warmup: it runs the workload as configured, for the warm-up
// time and without logs, progress lines or metrics, and keeps only how
// much it ran; the measured run starts afterwards, on new connections,
// as curve, slo, ab and the matrix warm up (series.Runner.WarmUp). ok is
// false when the warm-up failed or was interrupted: the run stops there
// with exit status 2.
func (b *benchSetup) warmUp(ctx context.Context, env *Env, seconds float64) (w *report.Warmup, ok bool) {
	if seconds <= 0 {
		return nil, true
	}
	c := *b.cfg
	c.Duration, c.Transactions = time.Duration(seconds*float64(time.Second)), 0
	c.Log, c.OnProgress, c.Tick, c.Progress = nil, nil, 0, 0
	fmt.Fprintf(env.Stderr, "gbench: warming up for %s s; its figures are discarded\n", fmtSeconds(seconds))
	res, err := engine.Run(ctx, &c)
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: warm-up: %v\n", err)
		return nil, false
	}
	t := res.Stats.Total
	w = &report.Warmup{Seconds: seconds, Transactions: t.Cnt, Failed: t.Failures(), Skipped: t.Skipped}
	switch {
	case res.Aborted > 0:
		fmt.Fprintf(env.Stderr, "gbench: error: %d clients aborted during the warm-up; nothing was measured\n", res.Aborted)
		return w, false
	case res.Interrupted || ctx.Err() != nil:
		fmt.Fprintf(env.Stderr, "gbench: Run was interrupted during the warm-up; nothing was measured.\n")
		return w, false
	}
	return w, true
}

// fmtSeconds writes seconds without needless decimals: "5", "0.5".
func fmtSeconds(s float64) string { return fmt.Sprint(s) }
