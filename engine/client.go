package engine

import (
	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// cstate is a client's state, as in pgbench's CState machine.
type cstate uint8

const (
	stChooseScript cstate = iota
	stStartTx
	stPrepareThrottle
	stThrottle
	stStartCommand
	stWaitResult    // a reply, or a pipeline's replies
	stWaitPrepare   // statements prepared before a pipeline
	stSleep         // \sleep
	stEndCommand    // record the command, go to the next one
	stError         // clean up after a retryable error
	stWaitDiscard   // read a failed pipeline's remaining replies
	stWaitRollback  // ROLLBACK after an error inside a transaction block
	stReconnectWait // --reconnect: waiting for the next attempt
	stConnecting    // --reconnect: a goroutine opens the connections
	stRetry
	stFailure
	stEndTx
	stAborted
	stFinished
)

// waitSet is the set of a client's connections it needs input from: bit k
// for connection k.
type waitSet uint64

func waitOn(k int) waitSet { return 1 << k }

// client is one simulated client. It belongs to one thread and is only
// touched by that thread's goroutine.
type client struct {
	id    int
	index int // in the thread
	th    *thread
	env   script.Env

	state    cstate
	script   int
	cmd      int
	next     int  // the command END_COMMAND moves to
	jumpNext bool // next is the target of a false condition
	jumped   bool // arrived at cmd by a conditional jump, not in sequence
	// skipRecord: the command's latency is recorded when its reply
	// arrives (a pipelined command that is answered on its own).
	skipRecord bool
	cnt        int64
	// limit is the number of transactions the client runs; 0 for no limit
	// (-T).
	limit int64

	txnScheduled, txnBegin, stmtBegin, sleepUntil int64 // thread clock, ns

	estatus   estatus
	tries     int
	randSaved script.PRNG

	conns []*conn // by protocol, then a cluster's other nodes; nil when not connected
	// route routes the commands of protocol routeK over a cluster's
	// nodes; nil outside a cluster (engine/cluster.go).
	route  driver.Router
	routeK int
	// sent holds when each pipelined command answered on its own was
	// queued, by command index, to record its latency at its reply.
	sent []int64

	wait waitSet
	// waitSince is when the client began to wait for the reply it waits
	// for (--io-timeout).
	waitSince int64
	// downIn is the outage window in which the client lost its connection
	// and has not completed a transaction since; -1 when up.
	downIn int
	// attempts counts consecutive failed reconnections; backoff is the
	// last wait's base, ns.
	attempts int
	backoff  int64
	pipeline bool
	timer    int // index in the thread's timer heap, -1 when none
	queued   bool
	shellBuf []byte
}

// estatus is the error status of the current transaction.
type estatus uint8

const (
	esNone estatus = iota
	esMeta
	esConn
	esSerialization
	esDeadlock
	esOther  // a non-retryable server error: aborts under pgbench's rules, fails under --continue-on-error
	esFailed // a command failed (driver.Failed): fails the transaction
)

func (e estatus) retryable() bool { return e == esSerialization || e == esDeadlock }

// statsStatus maps a failure to its statistics category.
func (e estatus) statsStatus() stats.Status {
	switch e {
	case esNone:
		return stats.OK
	case esSerialization:
		return stats.SerializationFailure
	case esDeadlock:
		return stats.DeadlockFailure
	case esConn:
		return stats.ConnectionFailure
	}
	return stats.OtherFailure
}

func (c *client) commands() []*script.Command {
	return c.th.prog.Scripts[c.script].Commands
}

// done reports whether the client has stopped.
func (c *client) done() bool { return c.state == stAborted || c.state == stFinished }

// advance runs the state machine until the client must wait for input, a
// timer, or its turn. now is the thread clock, refreshed where pgbench
// refreshes it.
func (c *client) advance(now int64) {
	for {
		switch c.state {
		case stChooseScript:
			c.chooseScript(now)
		case stStartTx:
			if !c.startTx(&now) {
				continue
			}
		case stPrepareThrottle:
			c.prepareThrottle(now)
		case stThrottle:
			if now < c.txnScheduled {
				c.th.setTimer(c, c.txnScheduled)
				return
			}
			c.state = stStartTx
			if c.th.timeUp(now) {
				// The slot was due before the end (prepareThrottle ends
				// the client otherwise), but the client woke after it.
				c.th.unstarted++
				c.state = stFinished
			}
		case stStartCommand:
			if c.startCommand(&now) {
				return
			}
		case stWaitResult, stWaitPrepare, stWaitDiscard, stWaitRollback:
			if !c.receive(&now) {
				return
			}
		case stReconnectWait:
			if c.reconnectWait(now) {
				return
			}
		case stConnecting:
			return
		case stSleep:
			if now < c.sleepUntil {
				c.th.setTimer(c, c.sleepUntil)
				return
			}
			c.state = stEndCommand
		case stEndCommand:
			c.endCommand(now)
		case stError:
			c.onError(now)
		case stRetry:
			c.retry(now)
		case stFailure:
			c.failure(now)
		case stEndTx:
			if c.endTx(&now) {
				return
			}
		default: // stAborted, stFinished
			c.finish()
			return
		}
	}
}

func (c *client) chooseScript(now int64) {
	c.script = c.th.chooseScript()
	c.estatus, c.tries = esNone, 1
	if c.th.cfg.Debug {
		c.debugf("client %d executing script \"%s\"", c.id, c.th.prog.Scripts[c.script].Name)
	}
	switch {
	case c.th.timeUp(now):
		c.state = stFinished
	case c.th.throttleDelay > 0:
		c.state = stPrepareThrottle
	default:
		c.state = stStartTx
	}
}

// startTx begins a transaction, connecting first under -C. It reports
// false when it moved to a final state.
func (c *client) startTx(now *int64) bool {
	if c.th.cfg.Connect && c.needConnect() {
		start := *now
		if err := c.th.connectClient(c); err != nil {
			if c.th.cfg.Reconnect.Enabled {
				// The transaction fails at its first command.
				c.randSaved, c.txnBegin, c.cmd = c.env.Rand, *now, 0
				if c.th.throttleDelay == 0 {
					c.txnScheduled = *now
				}
				c.connLost(nil, err.Error())
				return false
			}
			c.th.errorf("%v", err)
			c.th.errorf("client %d aborted while establishing connection", c.id)
			c.state = stAborted
			return false
		}
		*now = c.th.clock()
		c.th.cur.ConnTime += (*now - start) / 1000
	}
	c.randSaved = c.env.Rand
	c.txnBegin = *now
	if c.th.throttleDelay == 0 {
		c.txnScheduled = *now
	}
	c.state, c.cmd, c.jumped = stStartCommand, 0, false
	return true
}

func (c *client) needConnect() bool {
	for _, cn := range c.conns[:len(c.th.run.protos)] {
		if cn == nil {
			return true
		}
	}
	return false
}

// inTransaction reports whether a server holds a transaction block open.
func (c *client) inTransaction() bool {
	for _, cn := range c.conns {
		if cn != nil && cn.tx != nil && cn.tx.InTransaction() {
			return true
		}
	}
	return false
}

// prepareThrottle schedules the next transaction on the thread's Poisson
// schedule, skipping slots already too late under --latency-limit.
func (c *client) prepareThrottle(now int64) {
	t := c.th
	if t.ramp == nil {
		t.throttleTrigger += t.throttleRand.Poisson(t.throttleDelay) * 1000
	} else {
		t.throttleTrigger = t.ramp.next(&t.throttleRand)
	}
	c.txnScheduled = t.throttleTrigger
	if limit := int64(t.cfg.LatencyLimit); limit > 0 && t.throttleTrigger < now-limit {
		c.recordTxn(now, true)
		if t.timeUp(now) || c.limit > 0 && c.cnt >= c.limit {
			c.state = stFinished
		}
		return
	}
	if t.endTime > 0 && c.txnScheduled > t.endTime {
		c.state = stFinished
		return
	}
	c.state = stThrottle
}

// endCommand records the command's latency and moves to the next one.
func (c *client) endCommand(now int64) {
	if c.th.cfg.PerCommand && !c.skipRecord {
		c.th.recordCommand(c.script, c.cmd, now-c.stmtBegin)
	}
	c.skipRecord = false
	c.cmd, c.jumped, c.jumpNext, c.state = c.next, c.jumpNext, false, stStartCommand
}

// endTx finishes a transaction. It reports true when the client yields its
// turn (pgbench returns here so that a script of meta-commands only cannot
// starve the other clients).
func (c *client) endTx(now *int64) bool {
	c.recordTxn(*now, false)
	if c.inTransaction() {
		c.th.errorf("client %d aborted: end of script reached without completing the last transaction", c.id)
		c.state = stAborted
		return false
	}
	if c.th.cfg.Connect {
		start := *now
		c.disconnect()
		*now = c.th.clock()
		c.th.cur.ConnTime += (*now - start) / 1000
	}
	if c.limit > 0 && c.cnt >= c.limit || c.th.timeUp(*now) {
		c.state = stFinished
		return false
	}
	c.state = stChooseScript
	c.th.requeue(c)
	return true
}

// recordTxn accumulates the finished (or skipped) transaction.
func (c *client) recordTxn(now int64, skipped bool) {
	st := c.estatus.statsStatus()
	if skipped {
		st = stats.Skipped
	}
	var latency, lag int64
	if !skipped && st == stats.OK {
		latency = (now - c.txnScheduled) / 1000
		lag = (c.txnBegin - c.txnScheduled) / 1000
		if c.downIn >= 0 {
			c.th.run.outages.succeed(c, now)
		}
	}
	c.th.recordTxn(c, st, latency, lag, now)
	c.cnt++
}

// finish closes the client's connections once it stops.
func (c *client) finish() {
	c.th.cancelTimer(c)
	c.disconnect()
}

func (c *client) disconnect() {
	for k, cn := range c.conns {
		if cn != nil {
			c.th.dropConn(&cn.sconn)
			c.conns[k] = nil
		}
	}
}

// debugf prints a --debug message; callers check cfg.Debug first so that
// the arguments are not built for nothing.
func (c *client) debugf(format string, args ...any) {
	c.th.logf("debug", format, args...)
}
