package report

import (
	"fmt"
	"io"

	"github.com/gbench/gbench/engine"
)

// ProgressLine writes one -P line in pgbench's form, then gbench's extra
// fields (latency percentiles of the interval) after pgbench's, so that a
// parser of pgbench lines still works.
func ProgressLine(out io.Writer, cfg *RunConfig, p engine.Progress, timestamp bool, percentiles []float64) error {
	w := &writer{w: out}
	t := p.Txn
	label := fmt.Sprintf("%.1f s", p.Elapsed.Seconds())
	if timestamp {
		label = fmt.Sprintf("%.3f s", float64(p.Wall.UnixMicro())/1e6)
	}
	var tps, lat, stddev, lag float64
	if p.Interval > 0 {
		tps = float64(t.Cnt) / p.Interval.Seconds()
	}
	if t.Cnt > 0 {
		lat, stddev, lag = 0.001*t.Latency.Mean(), 0.001*t.Latency.Stddev(), 0.001*t.Lag.Mean()
	}
	w.printf("progress: %s, %.1f tps, lat %.3f ms stddev %.3f, %d failed", label, tps, lat, stddev, t.Failures())
	if cfg.Rate > 0 {
		w.printf(", lag %.3f ms", lag)
		if cfg.LatencyLimit > 0 {
			w.printf(", %d skipped", t.Skipped)
		}
	}
	if cfg.MaxTries != 1 {
		w.printf(", %d retried, %d retries", t.Retried, t.Retries)
	}
	if cfg.Reconnect != nil {
		// gbench's: whose connections failed, and who is still without one.
		w.printf(", %d connection failures, %d of %d clients down", t.ConnectionFailures, p.Down, cfg.Clients)
	}
	if len(percentiles) > 0 && t.Hist.Count() > 0 {
		for _, q := range percentiles {
			w.printf(", %s %.3f ms", percentileName(q), float64(t.Hist.Quantile(q))/1000.0)
		}
	}
	w.printf("\n")
	return w.err
}
