package engine

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gbench/gbench/engine/stats"
)

// snapshot is how the progress reporter gets a thread's interval figures
// without a lock on the hot path: it raises want, wakes the thread, and the
// thread swaps its interval statistics and sends them over.
type snapshot struct {
	want   atomic.Bool
	mu     sync.Mutex // guards exited and left against a concurrent request
	exited bool
	left   *stats.Txn // what an exited thread did since its last snapshot
	ch     chan *stats.Txn
}

// answerSnapshot hands the current interval to the reporter, if asked.
func (t *thread) answerSnapshot() {
	if !t.snap.want.Load() {
		return
	}
	t.snap.want.Store(false)
	cur := t.interval
	t.interval = stats.NewTxn()
	t.snap.ch <- cur
}

// exitSnapshots marks the thread gone, answering a pending request.
func (t *thread) exitSnapshots() {
	t.snap.mu.Lock()
	t.snap.exited = true
	t.answerSnapshot()
	t.snap.left = t.interval
	t.interval = stats.NewTxn()
	t.snap.mu.Unlock()
}

// collect gathers and merges the live threads' interval figures.
func (r *run) collect() *stats.Txn {
	var asked []*thread
	total := stats.NewTxn()
	for _, t := range r.threads {
		t.snap.mu.Lock()
		if !t.snap.exited {
			t.snap.want.Store(true)
			asked = append(asked, t)
		} else if t.snap.left != nil {
			total.Merge(t.snap.left)
			t.snap.left = nil
		}
		t.snap.mu.Unlock()
		t.poll.wake()
	}
	for _, t := range asked {
		total.Merge(<-t.snap.ch)
	}
	return total
}

// startProgress reports every -P interval from its own goroutine; the
// returned function stops it.
func (r *run) startProgress(origin time.Time) func() {
	every := r.cfg.Progress
	if every <= 0 {
		every = r.cfg.Tick
	}
	if every <= 0 || r.cfg.OnProgress == nil {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		last := origin
		for k := 1; ; k++ {
			next := origin.Add(time.Duration(k) * every)
			timer := time.NewTimer(time.Until(next))
			select {
			case <-timer.C:
			case <-done:
				timer.Stop()
				return
			}
			txn := r.collect()
			now := time.Now()
			r.cfg.OnProgress(Progress{Elapsed: now.Sub(origin), Interval: now.Sub(last), Wall: now, Txn: txn})
			last = now
			for origin.Add(time.Duration(k+1) * every).Before(now) {
				k++
			}
		}
	}()
	return func() { close(done); <-finished }
}

// openLogs opens each thread's transaction log.
func (r *run) openLogs() error {
	if r.cfg.Log == nil {
		return nil
	}
	for _, t := range r.threads {
		l, err := r.cfg.Log.Open(t.id)
		if err != nil {
			return err
		}
		t.log = l
	}
	return nil
}

// closeLog flushes the thread's log.
func (t *thread) closeLog() {
	if t.log == nil {
		return
	}
	if err := t.log.Close(time.Now()); err != nil && t.err == nil {
		t.err = err
	}
}
