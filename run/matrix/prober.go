package matrix

import (
	"runtime"
	"time"
)

// prober runs the server-cost probes on one goroutine locked to its own OS
// thread, so that the CPU time they take in gbench's process can be
// measured (RUSAGE_THREAD) and taken out of the client's CPU time: reading
// /proc and asking Redis for INFO during a sample costs gbench a little,
// and that is not the cost of a request.
type prober struct {
	work chan func()
	done chan time.Duration
}

// newProber starts the probe goroutine; stop ends it.
func newProber() *prober {
	p := &prober{work: make(chan func()), done: make(chan time.Duration)}
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for fn := range p.work {
			t0 := threadCPU()
			fn()
			p.done <- threadCPU() - t0
		}
	}()
	return p
}

// do runs fn on the probe thread and returns the CPU time it took. Calls
// are serialised; do must not be called after stop.
func (p *prober) do(fn func()) time.Duration {
	p.work <- fn
	return <-p.done
}

// stop ends the probe goroutine.
func (p *prober) stop() { close(p.work) }
