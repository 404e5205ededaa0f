package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gbench/gbench/engine/stats"
)

// snapshot is how the progress reporter takes a thread's statistics
// without a lock on the hot path: it raises want, wakes the thread, and
// the thread hands over the block it recorded into since the last tick and
// goes on with an empty one, the spare the reporter emptied last time. A
// thread records each figure once; the reporter adds the blocks up.
type snapshot struct {
	want   atomic.Bool
	mu     sync.Mutex // guards exited, and cur once exited, against a concurrent request
	exited bool
	ch     chan *stats.Block // the thread's block, handed over
	spare  chan *stats.Block // an empty block for the thread to go on with
}

// answerSnapshot hands the thread's block to the reporter, if asked.
func (t *thread) answerSnapshot() {
	if !t.snap.want.Load() {
		return
	}
	t.snap.want.Store(false)
	cur := t.cur
	select {
	case t.cur = <-t.snap.spare:
	default: // not reached: the reporter gives a spare before each request
		t.cur = t.run.newBlock()
	}
	t.snap.ch <- cur
}

// exitSnapshots marks the thread gone, answering a pending request. What
// it recorded since then stays in t.cur, for the reporter or the end of
// the run to take.
func (t *thread) exitSnapshots() {
	t.snap.mu.Lock()
	t.snap.exited = true
	t.answerSnapshot()
	t.snap.mu.Unlock()
}

// collect adds what every thread recorded since the last collect into
// into: the live threads' blocks, handed over and given back empty as
// their next spare, and the exited threads' last blocks, taken.
func (r *run) collect(into *stats.Block) {
	var asked []*thread
	for _, t := range r.threads {
		t.snap.mu.Lock()
		if !t.snap.exited {
			t.snap.want.Store(true)
			asked = append(asked, t)
		} else if t.cur != nil {
			into.Merge(t.cur)
			t.cur = nil
		}
		t.snap.mu.Unlock()
		t.poll.Wake()
	}
	for _, t := range asked {
		b := <-t.snap.ch
		into.Merge(b)
		b.Reset()
		t.snap.spare <- b
	}
}

// startProgress reports every -P interval (or Tick) from its own
// goroutine, at the boundaries origin + k*interval; the returned function
// stops it, given the benchmarking time, after reporting a boundary the
// run reached but the reporter had not yet. The figures reported go into
// the run's total.
func (r *run) startProgress() func(end time.Duration) {
	every := r.cfg.Progress
	if every <= 0 {
		every = r.cfg.Tick
	}
	if every <= 0 || r.cfg.OnProgress == nil {
		return func(time.Duration) {}
	}
	for _, t := range r.threads {
		t.snap.spare <- r.newBlock()
	}
	p := &progress{r: r, every: every, interval: r.newBlock()}
	done, finished := make(chan time.Duration), make(chan struct{})
	go func() {
		defer close(finished)
		for k := 1; ; k++ {
			timer := time.NewTimer(time.Until(r.origin.Add(time.Duration(k) * every)))
			select {
			case <-timer.C:
				k = p.report(k, 0)
			case end := <-done:
				timer.Stop()
				// A -T run lasts its duration, even when its throttled
				// clients all stop a little before (their next slot is past
				// it): its last boundaries are reported whatever the clients'
				// timing, so that every worker of a run reports the same.
				if d := r.cfg.Duration; d > 0 && !r.stopping() {
					end = max(end, d)
				}
				if last := int(end / every); last >= k {
					p.report(k, last)
				}
				return
			}
		}
	}()
	return func(end time.Duration) { done <- end; <-finished }
}

// progress is the state of the reporter goroutine.
type progress struct {
	r        *run
	every    time.Duration
	interval *stats.Block // reused for each interval
	last     time.Duration
}

// report collects and reports the interval ending at boundary k, at
// least, or at a later one when the reporter comes late (pgbench then
// reports one longer interval); it returns the boundary reported.
func (p *progress) report(k, least int) int {
	r := p.r
	p.interval.Reset()
	r.collect(p.interval)
	r.total.Merge(p.interval)
	elapsed := time.Since(r.origin)
	k = max(k, least, int(elapsed/p.every))
	r.cfg.OnProgress(Progress{
		Index: k, Elapsed: elapsed, Interval: elapsed - p.last, Wall: r.wall.Add(elapsed),
		Txn: p.interval.Total, Block: p.interval, Total: r.total, Down: int(r.outages.down.Load()),
	})
	p.last = elapsed
	return k
}

// openLogs opens each thread's transaction log.
func (r *run) openLogs() error {
	if r.cfg.Log == nil {
		return nil
	}
	for _, t := range r.threads {
		l, err := r.cfg.Log.Open(t.id)
		if err != nil {
			r.closeLogs()
			return err
		}
		t.log = l
	}
	return nil
}

// closeLogs closes the logs of a run that does not start.
func (r *run) closeLogs() {
	for _, t := range r.threads {
		if t.log != nil {
			_ = t.log.Close(time.Now())
			t.log = nil
		}
	}
}

// closeLog flushes the thread's log.
func (t *thread) closeLog() {
	if t.log == nil {
		return
	}
	if err := t.log.Close(t.wallAt(t.clock())); err != nil && t.err == nil {
		t.err = err
	}
}
