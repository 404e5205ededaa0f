package engine

import (
	"fmt"
	"github.com/gbench/gbench/engine/internal/netpoll"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// thread is one event loop: a goroutine locked to an OS thread that runs a
// block of clients, like a pgbench thread.
type thread struct {
	id      int
	run     *run
	cfg     *Config
	prog    *script.Program
	clients []*client
	poll    netpoll.Poller
	bufs    bufPool // input buffers the connections borrow (sconn.go)
	timers  timerHeap
	ready   []*client // clients to advance without waiting, in order
	origin  time.Time
	wall    time.Time // origin's time on the run's timeline

	endTime         int64   // -T deadline on the thread clock; 0 for none
	throttleDelay   float64 // mean delay between this thread's transactions, us
	throttleTrigger int64   // the last scheduled start, ns
	unstarted       int64   // slots due by endTime that no transaction started
	ramp            *ramp   // a linear rate ramp (Config.RateEnd); nil at a constant rate
	chooseRand      script.PRNG
	throttleRand    script.PRNG
	sampleRand      script.PRNG

	// cur is what the thread measured since the last progress tick, which
	// takes it over (progress.go); without ticks, the whole run.
	cur  *stats.Block
	snap snapshot
	log  TxLog

	remaining int
	aborted   int
	err       error

	// connecting counts the clients whose reconnection is in flight; their
	// results come over reconns (--reconnect).
	connecting  int
	reconns     chan reconnResult
	backoffRand script.PRNG
	// watch is set when the loop must look at its waiting clients now and
	// then (watchdog.go): at nextScan, on the thread clock.
	watch    bool
	nextScan int64
}

// clock returns the time since the run's origin, from the monotonic clock.
func (t *thread) clock() int64 { return int64(time.Since(t.origin)) }

// wallAt returns the time on the run's timeline of now, a thread clock
// reading.
func (t *thread) wallAt(now int64) time.Time { return t.wall.Add(time.Duration(now)) }

// timeUp reports whether -T is over or the run was interrupted.
func (t *thread) timeUp(now int64) bool {
	return t.endTime > 0 && now >= t.endTime || t.run.stopping()
}

// chooseScript picks a script by weight with the thread's own sequence.
func (t *thread) chooseScript() int {
	scripts := t.prog.Scripts
	if len(scripts) == 1 {
		return 0
	}
	w := t.chooseRand.Int64Range(0, t.prog.TotalWeight-1)
	i := 0
	for {
		w -= int64(scripts[i].Weight)
		i++
		if w < 0 {
			return i - 1
		}
	}
}

// requeue puts a client at the end of the ready queue.
func (t *thread) requeue(c *client) {
	if !c.queued {
		c.queued = true
		t.ready = append(t.ready, c)
	}
}

// loop runs the clients until they all finish or abort.
func (t *thread) loop() {
	for t.remaining > 0 {
		t.runReady()
		if t.remaining == 0 {
			break
		}
		t.answerSnapshot()
		evs, err := t.poll.Wait(t.deadline(), t.clock())
		if err != nil {
			t.err = fmt.Errorf("waiting for sockets: %w", err)
			t.abortAll()
			return
		}
		now := t.clock()
		for i := range evs {
			t.dispatch(&evs[i], now)
		}
		if t.connecting > 0 {
			t.takeReconnects(now)
		}
		t.fireTimers(now)
		if t.watch && now >= t.nextScan {
			t.scan(now)
		}
		t.answerSnapshot()
		if t.run.hard.Load() {
			t.abortAll()
			break
		}
		if t.run.stopping() {
			t.wakeWaiting(now)
		}
	}
	t.exitSnapshots()
}

// runReady advances the queued clients; a client that ends a transaction
// goes to the back of the queue, so clients take turns.
func (t *thread) runReady() {
	for len(t.ready) > 0 {
		batch := len(t.ready)
		now := t.clock()
		for i := 0; i < batch; i++ {
			c := t.ready[i]
			c.queued = false
			t.step(c, now)
		}
		t.ready = t.ready[:copy(t.ready, t.ready[batch:])]
		if t.run.stopping() {
			t.wakeWaiting(t.clock())
		}
	}
}

// step advances one client and accounts for it finishing.
func (t *thread) step(c *client, now int64) {
	if c.done() {
		return
	}
	c.advance(now)
	if c.done() {
		t.ended(c)
	}
}

// stop ends a client that is not done yet in state st (stFinished or
// stAborted), outside its state machine.
func (t *thread) stop(c *client, st cstate) {
	if c.done() {
		return
	}
	c.state = st
	t.ended(c)
}

// ended accounts for a client that just finished or aborted.
func (t *thread) ended(c *client) {
	c.finish()
	t.remaining--
	if c.state == stAborted {
		t.aborted++
		if t.cfg.ExitOnAbort {
			t.run.abort()
		}
	}
}

// deadline returns until when the loop may wait, on the thread clock: the
// nearest timer, 0 (now) when clients are ready, or -1 for no deadline.
func (t *thread) deadline() int64 {
	if len(t.ready) > 0 {
		return 0
	}
	d := int64(-1)
	if len(t.timers) > 0 {
		d = t.timers[0].at
	}
	if t.watch && (d < 0 || t.nextScan < d) {
		d = t.nextScan
	}
	return d
}

// dispatch handles one readiness event: pending output is written, input
// is read into the connection's buffer, and the client advances if it
// waits for it.
func (t *thread) dispatch(ev *netpoll.Event, now int64) {
	c, k := t.connByToken(ev.Tok)
	if c.conns[k] == nil {
		return
	}
	conn := &c.conns[k].sconn
	if ev.Out && conn.watchWrite {
		if done, _ := conn.flush(); done || conn.dead() {
			conn.watchWrite = false
			_ = t.poll.WatchWrite(conn.tr, conn.tok, false)
		}
	}
	if ev.In {
		conn.arrived()
	}
	if c.waitsFor(k) {
		t.step(c, now)
	}
}

// fireTimers advances the clients whose sleep or schedule is due.
func (t *thread) fireTimers(now int64) {
	for len(t.timers) > 0 && t.timers[0].at <= now {
		c := t.timers[0].c
		t.cancelTimer(c)
		t.step(c, now)
	}
}

// wakeWaiting advances sleeping and throttled clients when the run is
// interrupted, so they notice and stop.
func (t *thread) wakeWaiting(now int64) {
	t.finishConnecting(now)
	for len(t.timers) > 0 {
		c := t.timers[0].c
		t.cancelTimer(c)
		if c.state == stThrottle {
			// Ended here, not by its state machine (which returns at
			// once for a finished client): a throttled client used to
			// stay counted, and a run stopped under --rate never ended.
			t.stop(c, stFinished)
			continue
		}
		if c.state == stSleep {
			c.sleepUntil = now
		}
		t.step(c, now)
	}
}

// waitsFor reports whether the client waits for input on connection k.
func (c *client) waitsFor(k int) bool {
	switch c.state {
	case stWaitResult, stWaitPrepare, stWaitDiscard, stWaitRollback:
		return c.wait&waitOn(k) != 0
	}
	return false
}

// abortAll stops every client after a fatal loop error.
func (t *thread) abortAll() {
	for _, c := range t.clients {
		if !c.done() {
			c.state = stAborted
			c.finish()
			t.remaining--
			t.aborted++
		}
	}
}

// errorf prints an error message like pgbench's pg_log_error.
func (t *thread) errorf(format string, args ...any) { t.logf("error", format, args...) }

// logf prints "gbench: level: message"; debug messages have no level
// word, as pgbench's.
func (t *thread) logf(level, format string, args ...any) {
	// Like pgbench's pg_log, strip one final newline of the message: a
	// --debug "sending" line then reads the same as pgbench's.
	msg := strings.TrimSuffix(fmt.Sprintf(format, args...), "\n")
	if level == "debug" {
		t.run.printf("gbench: %s\n", msg)
		return
	}
	t.run.printf("gbench: %s: %s\n", level, msg)
}
