package engine

import (
	"time"

	"github.com/gbench/gbench/engine/stats"
)

// recordTxn accumulates a finished or skipped transaction in the thread's
// statistics and log (pgbench's processXactStats).
func (t *thread) recordTxn(c *client, st stats.Status, latency, lag int64) {
	lat, lg := float64(latency), float64(lag)
	t.block.Total.Record(st, lat, lg, c.tries)
	if len(t.block.Scripts) > 1 {
		t.block.Scripts[c.script].Record(st, lat, lg, c.tries)
	}
	t.interval.Record(st, lat, lg, c.tries)
	if limit := t.cfg.LatencyLimit; limit > 0 && st == stats.OK && latency > limit.Microseconds() {
		t.block.Total.Late++
		t.interval.Late++
	}
	if t.log != nil {
		t.logTxn(c, st, latency, lag)
	}
}

// logTxn writes the transaction to the -l log, sampled under
// --sampling-rate with the thread's own sequence.
func (t *thread) logTxn(c *client, st stats.Status, latency, lag int64) {
	if r := t.cfg.SamplingRate; r > 0 && t.sampleRand.Float64() > r {
		return
	}
	err := t.log.Transaction(LogEntry{
		Client: c.id, Count: c.cnt, Script: c.script, Status: st,
		Latency: latency, Lag: lag, Tries: c.tries, Wall: time.Now(),
	})
	if err != nil && t.err == nil {
		t.err = err
		t.log = nil
	}
}

// recordCommand accumulates one command's latency (-r).
func (t *thread) recordCommand(script, cmd int, ns int64) {
	if t.block.Commands == nil {
		return
	}
	cs := &t.block.Commands[script][cmd]
	us := ns / 1000
	cs.Latency.Add(float64(ns) / 1000)
	cs.Hist.Record(us)
}

// countRetry counts a retry of the command that failed.
func (t *thread) countRetry(script, cmd int) {
	if t.block.Commands != nil {
		t.block.Commands[script][cmd].Retries++
	}
}

// countFailure counts a transaction that failed at a command.
func (t *thread) countFailure(script, cmd int) {
	if t.block.Commands != nil {
		t.block.Commands[script][cmd].Failures++
	}
}

// countFailureClass counts a \resp error reply of a command by class.
func (t *thread) countFailureClass(script, cmd int, class string) {
	if t.block.Commands == nil {
		return
	}
	cs := &t.block.Commands[script][cmd]
	if cs.Classes == nil {
		cs.Classes = map[string]int64{}
	}
	cs.Classes[class]++
}
