package engine

import (
	"context"
	"strings"
	"time"
)

// This file is what --reconnect adds to the client state machine: a
// transaction whose connection is lost, refused or timed out fails as a
// connection failure, the client drops its connections, waits out a
// backoff, opens them again off the thread (a goroutine per reconnecting
// client, at most maxDialers dialing at once per run), and goes on with
// its next transaction. Without --reconnect the same events abort the
// client with pgbench's messages.

// maxDialers bounds the reconnections in flight in a run, as connectAll
// bounds the initial ones: a restart of the server must not become a
// connection storm.
const maxDialers = 64

// reconnResult is a reconnection's outcome, handed to the client's thread.
type reconnResult struct {
	c     *client
	conns []*conn
	err   error
}

// connLost ends the current transaction as a connection failure and sends
// the client to reconnect; without --reconnect it aborts the client with
// pgbench's message, as before. cn is the connection that failed (nil for a
// failed connect under -C); msg says why.
func (c *client) connLost(cn *conn, msg string) {
	t := c.th
	if !t.cfg.Reconnect.Enabled {
		name := "SQL"
		if cn != nil {
			name = cn.d.Name()
		}
		t.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, c.cmd, name, c.script, msg)
		c.state = stAborted
		return
	}
	now := t.clock()
	if t.cfg.VerboseErrors {
		t.logf("info", "client %d lost its connection in command %d of script %d; %s", c.id, c.cmd, c.script, msg)
	}
	if t.run.outages.fail(c, now, firstLine(msg)) {
		t.logf("warning", "client %d lost its connection (%s); clients reconnect", c.id, firstLine(msg))
	}
	c.disconnect()
	c.pipeline, c.wait = false, 0
	c.estatus = esConn
	t.countFailure(c.script, c.cmd)
	c.recordTxn(now, false)
	// The next transaction draws what this one drew, as pgbench's retry
	// does: the sequence of completed transactions is the one a run
	// without the fault would have had.
	c.env.Rand = c.randSaved
	c.attempts, c.backoff = 0, 0
	c.sleepUntil = now
	switch {
	case c.limit > 0 && c.cnt >= c.limit, t.timeUp(now):
		c.state = stFinished
	default:
		c.state = stReconnectWait
	}
}

// firstLine is the first line of a server's message.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// reconnectWait waits for the client's next attempt, then starts it. It
// reports true when the client waits.
func (c *client) reconnectWait(now int64) bool {
	t := c.th
	if t.timeUp(now) {
		c.state = stFinished
		return false
	}
	if now < c.sleepUntil {
		t.setTimer(c, c.sleepUntil)
		return true
	}
	t.startReconnect(c)
	return true
}

// startReconnect opens the client's connections off the thread; the
// result comes back through the thread's channel, with a wake-up.
func (t *thread) startReconnect(c *client) {
	c.state = stConnecting
	t.connecting++
	r := t.run
	r.dialers.Add(1)
	go func() {
		defer r.dialers.Done()
		res := reconnResult{c: c}
		select {
		case r.dialSem <- struct{}{}:
			ctx := r.dialCtx
			if d := t.cfg.IOTimeout; d > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, d)
				defer cancel()
			}
			res.conns, res.err = r.openConns(ctx, c)
			<-r.dialSem
		case <-r.dialCtx.Done():
			res.err = r.dialCtx.Err()
		}
		t.reconns <- res
		t.poll.Wake()
	}()
}

// takeReconnects hands the finished reconnections to their clients.
func (t *thread) takeReconnects(now int64) {
	for t.connecting > 0 {
		select {
		case res := <-t.reconns:
			t.connecting--
			t.reconnected(res, now)
		default:
			return
		}
	}
}

// reconnected installs a client's new connections, or schedules its next
// attempt after a failed one.
func (t *thread) reconnected(res reconnResult, now int64) {
	c := res.c
	if c.state != stConnecting {
		closeConns(res.conns)
		return
	}
	if res.err == nil {
		if res.err = t.install(c, res.conns); res.err != nil {
			c.disconnect()
		}
	}
	if res.err == nil {
		t.cur.Reconnects++
		c.attempts, c.backoff = 0, 0
		c.state = stChooseScript
		t.step(c, now)
		return
	}
	t.cur.ReconnectFailures++
	t.run.outages.reconnectFailed(c, res.err)
	if t.cfg.VerboseErrors {
		t.logf("info", "client %d could not reconnect (attempt %d): %v", c.id, c.attempts+1, res.err)
	}
	c.attempts++
	if m := t.cfg.Reconnect.Max; m > 0 && c.attempts >= m {
		t.errorf("client %d aborted: could not reconnect in %d attempts: %v", c.id, c.attempts, res.err)
		t.stop(c, stAborted)
		return
	}
	c.sleepUntil = now + t.nextBackoff(c)
	c.state = stReconnectWait
	t.step(c, now)
}

// nextBackoff returns the wait before the client's next attempt: Delay,
// doubled after each failed attempt up to MaxDelay, drawn between half of
// it and all of it.
func (t *thread) nextBackoff(c *client) int64 {
	p := t.cfg.Reconnect
	switch {
	case c.backoff == 0:
		c.backoff = int64(p.Delay)
	default:
		c.backoff = min(2*c.backoff, int64(p.MaxDelay))
	}
	c.backoff = max(c.backoff, int64(time.Millisecond))
	half := c.backoff / 2
	return half + t.backoffRand.Int64Range(0, c.backoff-half)
}

// closeConns closes connections that no client took.
func closeConns(conns []*conn) {
	for _, cn := range conns {
		if cn != nil {
			_ = cn.tr.Close()
		}
	}
}

// finishConnecting ends the clients that reconnect (or wait to) when the
// run stops or its time is up; results still in flight are dropped on
// arrival.
func (t *thread) finishConnecting(now int64) {
	if !t.cfg.Reconnect.Enabled || !t.timeUp(now) {
		return
	}
	for _, c := range t.clients {
		if c.state == stConnecting || c.state == stReconnectWait {
			t.stop(c, stFinished)
		}
	}
}

// awaitDialers waits for the reconnections still in flight once the
// threads are done, closing what they opened.
func (r *run) awaitDialers() {
	r.dialCancel()
	r.dialers.Wait()
	for _, t := range r.threads {
		for {
			select {
			case res := <-t.reconns:
				closeConns(res.conns)
				continue
			default:
			}
			break
		}
	}
}
