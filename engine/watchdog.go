package engine

import (
	"fmt"
	"math"
	"time"
)

// The watchdog is how a dead peer cannot hang a run: now and then (never
// on the hot path) a thread looks at its clients that wait for a reply.
// One that has waited longer than --io-timeout fails (a connection
// failure under --reconnect, else an abort); one still waiting EndGrace
// after the end of a -T run aborts. A loop's wait is bounded by the next
// look, so a server that sends nothing at all (SIGSTOP, a cut network)
// is noticed too.

// afterEndScan is how often a thread looks after the end of a -T run.
const afterEndScan = 100 * time.Millisecond

// armWatch decides whether the thread needs its watchdog and sets the
// first look.
func (t *thread) armWatch() {
	t.watch = t.cfg.IOTimeout > 0 || t.endTime > 0
	t.nextScan = t.scanAfter(0)
}

// grace is the bound after the end of a -T run; negative for none.
func (t *thread) grace() time.Duration {
	if g := t.cfg.EndGrace; g != 0 {
		return g
	}
	return DefaultEndGrace
}

// scanAfter returns when to look next after a look at now: an eighth of
// --io-timeout later, at the end of a -T run, and often after it.
func (t *thread) scanAfter(now int64) int64 {
	next := int64(math.MaxInt64)
	if io := t.cfg.IOTimeout; io > 0 {
		next = now + max(int64(io)/8, int64(time.Millisecond))
	}
	if t.endTime > 0 {
		if now < t.endTime {
			next = min(next, t.endTime)
		} else {
			next = min(next, now+int64(afterEndScan))
		}
	}
	return next
}

// scan looks at every client once.
func (t *thread) scan(now int64) {
	t.nextScan = t.scanAfter(now)
	t.finishConnecting(now)
	g := t.grace()
	overdue := t.endTime > 0 && g >= 0 && now >= t.endTime+int64(g)
	io := int64(t.cfg.IOTimeout)
	for _, c := range t.clients {
		if !c.waitsForReply() {
			continue
		}
		cn := c.conns[c.waiting()]
		switch {
		case overdue:
			t.errorf("client %d aborted in command %d (%s) of script %d; no reply %s after the end of the run (-T)",
				c.id, c.cmd, cn.d.Name(), c.script, fmtSeconds(g))
			t.stop(c, stAborted)
		case io > 0 && now-c.waitSince >= io:
			c.connLost(cn, fmt.Sprintf("no reply within %s (--io-timeout)", fmtSeconds(t.cfg.IOTimeout)))
			if c.done() {
				t.ended(c)
			} else {
				t.step(c, now)
			}
		}
	}
}

// waitsForReply reports whether the client waits for a server's reply.
func (c *client) waitsForReply() bool {
	switch c.state {
	case stWaitResult, stWaitPrepare, stWaitDiscard, stWaitRollback:
		return true
	}
	return false
}

// fmtSeconds prints a duration as pgbench prints times: "2.500 s".
func fmtSeconds(d time.Duration) string {
	return fmt.Sprintf("%.3f s", d.Seconds())
}
