package engine

import (
	"fmt"
	"strings"
)

// onError cleans up after a retryable error or a \resp error reply: it
// reads what a failed pipeline still owes, rolls back an open transaction
// block, then retries or fails the transaction.
func (c *client) onError(now int64) {
	if c.pipeline && c.anyPending() {
		c.state, c.wait, c.waitSince = stWaitDiscard, c.pendingSet(), now
		return
	}
	if c.pipeline {
		c.exitPipeline()
	}
	c.wait = 0
	for k, cn := range c.conns {
		if cn == nil || cn.tx == nil || !cn.tx.InTransaction() {
			continue
		}
		cn.out = cn.tx.Rollback(cn.out)
		if _, err := cn.flush(); err != nil {
			if c.th.cfg.Reconnect.Enabled {
				c.connLost(cn, "failed to send sql command for rolling back the failed transaction")
				return
			}
			c.th.errorf("client %d aborted: failed to send sql command for rolling back the failed transaction", c.id)
			c.state = stAborted
			return
		}
		c.th.watchWrite(&cn.sconn)
		c.wait |= waitOn(k)
	}
	if c.wait != 0 {
		c.state, c.waitSince = stWaitRollback, now
		return
	}
	c.afterCleanup(now)
}

// afterCleanup decides between retrying and failing, as pgbench's doRetry.
func (c *client) afterCleanup(now int64) {
	switch {
	case c.th.timeUp(now):
		c.state = stFinished
	case c.canRetry(now):
		c.state = stRetry
	default:
		c.state = stFailure
	}
}

func (c *client) canRetry(now int64) bool {
	cfg := c.th.cfg
	switch {
	case !c.estatus.retryable():
		return false
	case cfg.MaxTries > 0 && c.tries >= cfg.MaxTries:
		return false
	case cfg.LatencyLimit > 0 && now-c.txnScheduled > int64(cfg.LatencyLimit):
		return false
	}
	return !c.th.timeUp(now)
}

// retry restarts the transaction with the random state it began with.
func (c *client) retry(now int64) {
	if c.th.cfg.VerboseErrors {
		c.th.logf("info", "%s", c.verboseRetry(now, true))
	}
	c.tries++
	c.th.countRetry(c.script, c.cmd)
	c.env.Rand = c.randSaved
	c.cmd, c.jumped, c.estatus, c.state = 0, false, esNone, stStartCommand
}

// failure ends the transaction as failed.
func (c *client) failure(now int64) {
	c.th.countFailure(c.script, c.cmd)
	if c.th.cfg.VerboseErrors {
		c.th.logf("info", "%s", c.verboseRetry(now, false))
	}
	c.state = stEndTx
}

// verboseRetry is pgbench's --verbose-errors message about a retry or a
// failure.
func (c *client) verboseRetry(now int64, retry bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "client %d ", c.id)
	if retry {
		b.WriteString("repeats the transaction after the error")
	} else {
		b.WriteString("ends the failed transaction")
	}
	fmt.Fprintf(&b, " (try %d", c.tries)
	cfg := c.th.cfg
	if cfg.MaxTries > 0 {
		fmt.Fprintf(&b, "/%d", cfg.MaxTries)
	}
	if cfg.LatencyLimit > 0 {
		fmt.Fprintf(&b, ", %.3f%% of the maximum time of tries was used",
			100.0*float64(now-c.txnScheduled)/float64(cfg.LatencyLimit))
	}
	b.WriteString(")")
	return b.String()
}
