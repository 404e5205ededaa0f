package engine

import (
	"github.com/gbench/gbench/engine/stats"
)

// recordTxn accumulates a finished or skipped transaction in the thread's
// statistics and log (pgbench's processXactStats); now is its end on the
// thread clock.
func (t *thread) recordTxn(c *client, st stats.Status, latency, lag, now int64) {
	lat, lg := float64(latency), float64(lag)
	b := t.cur
	b.Total.Record(st, lat, lg, c.tries)
	if len(b.Scripts) > 1 {
		b.Scripts[c.script].Record(st, lat, lg, c.tries)
	}
	if limit := t.cfg.LatencyLimit; limit > 0 && st == stats.OK && latency > limit.Microseconds() {
		b.Total.Late++
	}
	if t.log != nil {
		t.logTxn(c, st, latency, lag, now)
	}
}

// logTxn writes the transaction to the -l log, sampled under
// --sampling-rate with the thread's own sequence.
func (t *thread) logTxn(c *client, st stats.Status, latency, lag, now int64) {
	if r := t.cfg.SamplingRate; r > 0 && t.sampleRand.Float64() > r {
		return
	}
	err := t.log.Transaction(LogEntry{
		Client: c.id, Count: c.cnt, Script: c.script, Status: st,
		Latency: latency, Lag: lag, Tries: c.tries, Wall: t.wallAt(now),
	})
	if err != nil && t.err == nil {
		t.err = err
		t.log = nil
	}
}

// recordCommand accumulates one command's latency (-r).
func (t *thread) recordCommand(script, cmd int, ns int64) {
	if t.cur.Commands == nil {
		return
	}
	cs := &t.cur.Commands[script][cmd]
	us := ns / 1000
	cs.Latency.Add(float64(ns) / 1000)
	cs.Hist.Record(us)
}

// countRetry counts a retry of the command that failed.
func (t *thread) countRetry(script, cmd int) {
	if t.cur.Commands != nil {
		t.cur.Commands[script][cmd].Retries++
	}
}

// countFailure counts a transaction that failed at a command.
func (t *thread) countFailure(script, cmd int) {
	if t.cur.Commands != nil {
		t.cur.Commands[script][cmd].Failures++
	}
}

// countFailureClass counts a \resp error reply of a command by class.
func (t *thread) countFailureClass(script, cmd int, class string) {
	if t.cur.Commands == nil {
		return
	}
	cs := &t.cur.Commands[script][cmd]
	if cs.Classes == nil {
		cs.Classes = map[string]int64{}
	}
	cs.Classes[class]++
}
