package engine

import (
	"errors"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
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
	if c.wait == waitRESP {
		return c.receiveRESP(*now)
	}
	return c.receiveSQL()
}

// nextSQLReply decodes the next complete SQL reply. ok is false when more
// input is needed or the client aborted (c.state tells).
func (c *client) nextSQLReply() (ok bool) {
	pg := c.pg
	n, done, err := pg.s.Receive(pg.pending(), c.env.Vars, &pg.reply)
	pg.consume(n)
	if err != nil {
		c.abortSQL(err.Error())
		return false
	}
	if pg.s.NeedCopyFail() {
		pg.out = pg.s.CopyFail(pg.out)
		if _, err := pg.flush(); err != nil {
			c.abortSQL(pg.lost())
			return false
		}
	}
	if done {
		pg.need = 0
		return true
	}
	if pg.dead() {
		c.th.errorf("client %d aborted in command %d (SQL) of script %d; perhaps the backend died while processing", c.id, c.cmd, c.script)
		c.state = stAborted
		return false
	}
	pg.need = pgsql.MessageSize(pg.pending())
	return false
}

func (c *client) abortSQL(msg string) {
	c.th.errorf("client %d aborted in command %d (SQL) of script %d; %s", c.id, c.cmd, c.script, msg)
	c.state = stAborted
}

// receiveSQL handles the reply to one SQL command.
func (c *client) receiveSQL() bool {
	if c.th.cfg.Debug {
		c.debugf("client %d receiving", c.id)
	}
	if !c.nextSQLReply() {
		return c.state == stAborted
	}
	c.wait = waitNone
	return c.sqlOutcome(&c.pg.reply)
}

// sqlOutcome applies pgbench's rules to a reply: retryable errors go to
// error handling, other errors abort the client.
func (c *client) sqlOutcome(r *pgsql.Reply) bool {
	switch {
	case r.Copy:
		c.th.errorf("COPY is not supported in gbench, aborting")
		c.state = stAborted
	case r.Err != nil:
		c.sqlError(r.Err)
	case r.Store != nil:
		var se *pgsql.StoreError
		if errors.As(r.Store, &se) {
			c.th.errorf("%s", se.Reason())
		}
		c.th.errorf("client %d script %d command %d %v", c.id, c.script, c.cmd, r.Store)
		c.estatus = esMeta
		c.state = stAborted
	default:
		c.state = stEndCommand
	}
	return true
}

// sqlError classifies a server error; serialization and deadlock failures
// may be retried, anything else aborts the client as in pgbench 15.
func (c *client) sqlError(e *pgsql.Error) {
	if e.Unprepared != "" {
		// pgbench prepares in a request of its own and reports a failure
		// there, then fails to run the statement; so does gbench.
		c.estatus = esOther
		c.th.errorf("%s", e.Error())
		c.th.errorf("client %d script %d aborted in command %d query %d: prepared statement \"%s\" does not exist",
			c.id, c.script, c.cmd, e.Index, e.Unprepared)
		c.state = stAborted
		return
	}
	switch e.Code {
	case pgsql.CodeSerializationFailure:
		c.estatus = esSerialization
	case pgsql.CodeDeadlockDetected:
		c.estatus = esDeadlock
	default:
		c.estatus = esOther
		c.th.errorf("client %d script %d aborted in command %d query %d: %s", c.id, c.script, c.cmd, e.Index, e.Error())
		c.state = stAborted
		return
	}
	if c.th.cfg.VerboseErrors {
		c.th.logf("info", "client %d got an error in command %d (SQL) of script %d; %s", c.id, c.cmd, c.script, e.Error())
	}
	c.state = stError
}

// receiveRESP handles the reply to one \resp command.
func (c *client) receiveRESP(now int64) bool {
	ok, stop := c.nextRESPReply(now)
	if !ok {
		return stop
	}
	c.wait = waitNone
	if c.estatus == esRESP {
		c.state = stError
	} else {
		c.state = stEndCommand
	}
	return true
}

// nextRESPReply decodes and handles one \resp reply. ok is false when no
// complete reply is buffered; stop then tells whether the client aborted.
func (c *client) nextRESPReply(now int64) (ok, stop bool) {
	r := c.rs
	n, err := r.r.Parse(r.pending())
	if err != nil {
		c.abortRESP(err.Error())
		return false, true
	}
	if n == 0 {
		if r.dead() {
			c.abortRESP(r.lost())
			return false, true
		}
		r.need = r.r.Need()
		return false, false
	}
	r.need = 0
	p := r.inflight[0]
	r.inflight = r.inflight[:copy(r.inflight, r.inflight[1:])]
	cmd := c.commands()[p.cmd]
	vals := r.r.Values()
	top := &vals[r.r.Top()]
	if top.IsError() {
		c.respError(cmd, p.cmd, top.Bytes)
	} else if cmd.GSet != script.NoGSet {
		if err := c.storeRESP(cmd, vals, r.r.Top()); err != nil {
			c.th.errorf("client %d script %d command %d: %v", c.id, c.script, p.cmd, err)
			c.state = stAborted
			r.consume(n)
			return false, true
		}
	}
	r.consume(n)
	if c.pipeline && c.th.cfg.PerCommand {
		c.th.recordCommand(c.script, p.cmd, now-p.sent)
	}
	return true, false
}

func (c *client) abortRESP(msg string) {
	c.th.errorf("client %d aborted in command %d (resp) of script %d; %s", c.id, c.cmd, c.script, msg)
	c.state = stAborted
}

// respError counts an error reply as a failure of its command, classed by
// the reply's prefix (WRONGTYPE, NOAUTH, MOVED, ...).
func (c *client) respError(cmd *script.Command, idx int, msg []byte) {
	class := resp.ErrorClass(msg)
	if c.estatus == esNone {
		c.estatus = esRESP
	}
	c.th.countFailureClass(c.script, idx, class)
	if c.th.cfg.VerboseErrors {
		c.th.logf("info", "client %d got an error in command %d (resp) of script %d; %s", c.id, idx, c.script, msg)
	}
}

// receivePipeline collects the replies of an \endpipeline: every SQL sync
// and every \resp reply.
func (c *client) receivePipeline(now int64) bool {
	for c.syncs > 0 {
		if !c.nextSQLReply() {
			if c.state == stAborted {
				return true
			}
			break
		}
		c.syncs--
		if r := &c.pg.reply; r.Err != nil && c.estatus == esNone {
			if c.sqlError(r.Err); c.state == stAborted {
				return true
			}
		}
	}
	for c.rs != nil && len(c.rs.inflight) > 0 {
		ok, stop := c.nextRESPReply(now)
		if stop {
			return true
		}
		if !ok {
			break
		}
	}
	if c.syncs > 0 || c.rs != nil && len(c.rs.inflight) > 0 {
		return false
	}
	c.exitPipeline()
	c.wait = waitNone
	if c.estatus != esNone {
		c.state = stError
	} else {
		c.state = stEndCommand
	}
	return true
}

func (c *client) exitPipeline() {
	c.pipeline = false
	if c.pg != nil {
		c.pg.s.SetPipeline(false)
	}
}

// receivePrepare waits for the statements prepared before a pipeline. As
// in pgbench, a failed prepare is reported and the run goes on (the
// statement then fails when executed).
func (c *client) receivePrepare() bool {
	if !c.nextSQLReply() {
		return c.state == stAborted
	}
	if r := &c.pg.reply; r.Err != nil {
		c.th.errorf("%s", r.Err.Error())
	}
	c.enterPipeline()
	c.wait = waitNone
	c.state = stEndCommand
	return true
}

// receiveDiscard reads the remaining replies of a failed pipeline.
func (c *client) receiveDiscard() bool {
	for c.pg != nil && c.pg.s.Pending() > 0 {
		if !c.nextSQLReply() {
			return c.state == stAborted
		}
	}
	for c.rs != nil && len(c.rs.inflight) > 0 {
		ok, stop := c.nextRESPReply(c.th.clock())
		if stop {
			return true
		}
		if !ok {
			return false
		}
	}
	c.syncs = 0
	c.exitPipeline()
	c.wait = waitNone
	c.state = stError
	return true
}

// receiveRollback waits for the ROLLBACK sent after an error.
func (c *client) receiveRollback(now int64) bool {
	if !c.nextSQLReply() {
		if c.state == stAborted {
			c.th.errorf("client %d aborted while rolling back the transaction after an error; perhaps the backend died while processing", c.id)
		}
		return c.state == stAborted
	}
	c.wait = waitNone
	if r := &c.pg.reply; r.Err != nil {
		c.th.errorf("client %d aborted while rolling back the transaction after an error; %s", c.id, strings.TrimSpace(r.Err.Error()))
		c.state = stAborted
		return true
	}
	c.afterCleanup(now)
	return true
}
