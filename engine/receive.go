package engine

import (
	"strings"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/engine/stats"
)

// receive decodes the replies the client waits for. It reports true when
// the state machine can go on, false when it must wait for more input.
func (c *client) receive(now *int64) bool {
	switch c.state {
	case stWaitPrepare:
		return c.receivePrepare()
	case stWaitDiscard:
		return c.receiveDiscard()
	case stWaitRollback:
		return c.receiveRollback(*now)
	}
	if c.pipeline {
		return c.receivePipeline(*now)
	}
	return c.receiveOne()
}

// nextReply decodes the next complete reply on connection k into its
// reply field. ok is false when more input is needed or the client
// aborted (c.state tells).
func (c *client) nextReply(k int) (ok bool) {
	cn := c.conns[k]
	for {
		n, done, err := cn.d.Decode(cn.pending(), c.env.Vars, &cn.reply)
		cn.consume(n)
		if err != nil {
			c.connLost(cn, err.Error())
			return false
		}
		if done {
			cn.need = 0
			switch cn.reply.Status {
			case driver.Redirected:
				// A cluster's MOVED or ASK: the request went to another node;
				// replies still owed here come next.
				if c.redirect(cn) && cn.d.Pending() > 0 {
					continue
				}
				return false
			case driver.Partial:
				// A part of a split command (split.go): its last part's
				// reply is the command's.
				if cn.d.Pending() > 0 {
					continue
				}
				return false
			}
			return true
		}
		if cn.dead() {
			c.connLost(cn, "perhaps the backend died while processing")
			return false
		}
		if !cn.short(cn.d.Need()) {
			return false
		}
	}
}

// broken reports whether the client left its wait for good: it aborted,
// or lost its connection and reconnects (--reconnect).
func (c *client) broken() bool {
	return c.state == stAborted || c.state == stReconnectWait || c.state == stFinished
}

// waiting returns the one connection the client waits on outside a
// pipeline.
func (c *client) waiting() int {
	for k := range c.conns {
		if c.wait&waitOn(k) != 0 {
			return k
		}
	}
	return 0
}

// receiveOne handles the reply to one command.
func (c *client) receiveOne() bool {
	if c.th.cfg.Debug {
		c.debugf("client %d receiving", c.id)
	}
	k := c.waiting()
	if c.wait&(c.wait-1) != 0 {
		return c.receiveParts() // a split command's parts (split.go)
	}
	if !c.nextReply(k) {
		return c.broken()
	}
	c.wait = 0
	if c.outcome(c.conns[k]) {
		return true
	}
	c.commandDone()
	return true
}

// commandDone moves on from a command all of whose replies are in: to
// error handling when one of them failed the transaction.
func (c *client) commandDone() {
	c.wait = 0
	if c.estatus != esNone {
		c.state = stError
	} else {
		c.state = stEndCommand
	}
}

// outcome applies a reply's status to the transaction, as pgbench does:
// retryable errors and failed commands go to error handling once the
// command (or pipeline) is done, anything else that went wrong aborts the
// client. It reports true when the client aborted. Every failed command is
// counted, but only the first server error of a transaction matters: in a
// pipeline, later ones are what the first one left behind.
func (c *client) outcome(cn *conn) (aborted bool) {
	r := &cn.reply
	idx := r.Tag
	if idx < 0 {
		idx = c.cmd
	}
	// issue 23: a \resp reply's cache counters (hits, misses, bytes);
	// issue 25: an SQL reply's hit or miss under pgsql.RowsConnector.
	if rc := &r.Cache; rc.Sent|rc.Received|int64(rc.Hits|rc.Misses) != 0 {
		c.th.cur.AddCache(c.script, idx, &stats.Cache{Hits: int64(rc.Hits), Misses: int64(rc.Misses),
			FieldHits: int64(rc.FieldHits), FieldMisses: int64(rc.FieldMisses), BytesSent: rc.Sent, BytesRecv: rc.Received})
	}
	if r.Lost && c.th.cfg.Reconnect.Enabled {
		c.connLost(cn, r.Err.Error())
		return true
	}
	if r.Status == driver.Error && c.th.cfg.ContinueOnError && !r.Lost {
		return c.continueOnError(cn, r, idx)
	}
	switch r.Status {
	case driver.OK:
		return false
	case driver.Serialization, driver.Deadlock, driver.Error:
		if c.estatus != esNone {
			return false
		}
	}
	switch r.Status {
	case driver.Serialization, driver.Deadlock, driver.Failed:
		if r.Status == driver.Failed {
			c.th.countFailureClass(c.script, idx, r.Class)
		}
		if c.estatus == esNone {
			c.estatus = failureStatus(r.Status)
		}
		if c.th.cfg.VerboseErrors {
			c.th.logf("info", "client %d got an error in command %d (%s) of script %d; %s", c.id, idx, cn.d.Name(), c.script, r.Err)
		}
		return false
	}
	if r.Note != "" {
		c.th.errorf("%s", r.Note)
	}
	switch r.Status {
	case driver.Error:
		c.estatus = esOther
		c.th.errorf("client %d script %d aborted in command %d query %d: %v", c.id, c.script, idx, r.Query, r.Err)
	case driver.Unstored:
		c.estatus = esMeta
		c.th.errorf("client %d script %d command %d %v", c.id, c.script, idx, r.Err)
	default:
		c.th.errorf("%v", r.Err)
	}
	c.state = stAborted
	return true
}

// continueOnError fails the transaction on an SQL error that would abort
// the client (--continue-on-error): error handling rolls it back and the
// client starts its next transaction, as pgbench 19 does.
func (c *client) continueOnError(cn *conn, r *driver.Reply, idx int) bool {
	if c.estatus != esNone {
		return false
	}
	c.estatus = esOther
	if c.th.cfg.VerboseErrors {
		c.th.logf("info", "client %d got an error in command %d (%s) of script %d; %s", c.id, idx, cn.d.Name(), c.script, r.Err)
	}
	return false
}

func failureStatus(s driver.Status) estatus {
	switch s {
	case driver.Serialization:
		return esSerialization
	case driver.Deadlock:
		return esDeadlock
	}
	return esFailed
}

// receivePipeline collects the replies of an \endpipeline on every
// connection: a pipelined command answered on its own has its latency
// recorded when its reply arrives.
func (c *client) receivePipeline(now int64) bool {
	for k, cn := range c.conns {
		for cn != nil && cn.d.Pending() > 0 {
			if !c.nextReply(k) {
				if c.broken() {
					return true
				}
				break
			}
			if c.outcome(cn) {
				return true
			}
			if tag := cn.reply.Tag; tag >= 0 && c.th.cfg.PerCommand {
				c.th.recordCommand(c.script, tag, now-c.sent[tag])
			}
		}
	}
	if c.anyPending() {
		return false
	}
	c.exitPipeline()
	c.commandDone()
	return true
}

// anyPending reports whether a connection still owes replies.
func (c *client) anyPending() bool {
	for _, cn := range c.conns {
		if cn != nil && cn.d.Pending() > 0 {
			return true
		}
	}
	return false
}

// pendingSet returns the connections that still owe replies.
func (c *client) pendingSet() waitSet {
	var w waitSet
	for k, cn := range c.conns {
		if cn != nil && cn.d.Pending() > 0 {
			w |= waitOn(k)
		}
	}
	return w
}

// receivePrepare waits for the statements prepared before a pipeline. As
// in pgbench, a failed prepare is reported and the run goes on (the
// statement then fails when executed).
func (c *client) receivePrepare() bool {
	for k, cn := range c.conns {
		for c.wait&waitOn(k) != 0 && cn.d.Pending() > 0 {
			if !c.nextReply(k) {
				return c.broken()
			}
			if r := &cn.reply; r.Lost && c.th.cfg.Reconnect.Enabled {
				c.connLost(cn, r.Err.Error())
				return true
			} else if r.Status != driver.OK {
				c.th.errorf("%v", r.Err)
			}
		}
	}
	c.enterPipeline()
	c.wait = 0
	c.state = stEndCommand
	return true
}

// receiveDiscard reads and drops the remaining replies of a failed
// pipeline.
func (c *client) receiveDiscard() bool {
	for k, cn := range c.conns {
		for cn != nil && cn.d.Pending() > 0 {
			if !c.nextReply(k) {
				return c.broken()
			}
			if cn.reply.Lost && c.th.cfg.Reconnect.Enabled {
				c.connLost(cn, cn.reply.Err.Error())
				return true
			}
		}
	}
	c.exitPipeline()
	c.wait = 0
	c.state = stError
	return true
}

// receiveRollback waits for the ROLLBACK sent after an error.
func (c *client) receiveRollback(now int64) bool {
	for k, cn := range c.conns {
		for c.wait&waitOn(k) != 0 && cn.d.Pending() > 0 {
			if !c.nextReply(k) {
				if c.state == stAborted {
					c.th.errorf("client %d aborted while rolling back the transaction after an error; perhaps the backend died while processing", c.id)
				}
				return c.broken()
			}
			if r := &cn.reply; r.Lost && c.th.cfg.Reconnect.Enabled {
				c.connLost(cn, r.Err.Error())
				return true
			} else if r.Status != driver.OK {
				c.th.errorf("client %d aborted while rolling back the transaction after an error; %s", c.id, strings.TrimSpace(r.Err.Error()))
				c.state = stAborted
				return true
			}
		}
	}
	c.wait = 0
	c.afterCleanup(now)
	return true
}
