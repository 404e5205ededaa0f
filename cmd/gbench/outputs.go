package main

import (
	"fmt"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/report"
)

// setOutputs wires -P progress lines, logs and other outputs.
func (b *benchSetup) setOutputs(env *Env, o *options) {
	if o.progress > 0 {
		cfg, ts, pct := b.cfg, o.progressTimestamp, b.percentiles
		cfg.OnProgress = func(p engine.Progress) {
			if err := report.ProgressLine(env.Stderr, cfg, p, ts, pct); err != nil {
				fmt.Fprintf(env.Stderr, "gbench: error: writing progress: %v\n", err)
			}
		}
	}
}

// writeOutputs writes the result files after the summary.
func (b *benchSetup) writeOutputs(res *engine.Result) error {
	return nil
}
