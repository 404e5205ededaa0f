package matrix

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gbench/gbench/engine"
)

// ticksPerSample is how many progress ticks a sample gets. The server's
// CPU time is read at each tick but the last (too close to the end), and
// the window between the first and the last read is the sample's steady
// part: every connection is open and busy, none is being set up or torn
// down. With 5 ticks in 5 s that is the 3 s from 1 s to 4 s.
const ticksPerSample = 5

// measure follows one sample's server cost: counters and CPU before and
// after the run, CPU and memory at the progress ticks during it.
type measure struct {
	p      probe
	pr     *prober
	dur    time.Duration
	tick   time.Duration
	notes  []string
	before struct {
		at       time.Time
		cpu      cpuTime
		cpuErr   error
		counters map[string]int64
	}
	first, last *tickRead
	pending     int64 // requests since the last CPU read
	windowReq   int64 // requests between the first and the last read
	mem         *Memory
	memTried    bool
	probeCPU    time.Duration // the probes' CPU time during the run
}

// tickRead is the server's CPU time at a tick.
type tickRead struct {
	elapsed time.Duration
	cpu     cpuTime
}

func newMeasure(p probe, pr *prober, dur time.Duration) *measure {
	return &measure{p: p, pr: pr, dur: dur, tick: dur / ticksPerSample}
}

// begin reads the server's state before the sample.
func (m *measure) begin(ctx context.Context) {
	m.p.mark()
	var err error
	if m.before.counters, err = m.p.counters(ctx); err != nil {
		m.notef("counters not read: %v", err)
	}
	m.before.at = time.Now()
	if m.p.costNote() == "" {
		m.before.cpu, m.before.cpuErr = m.p.cpu()
	}
}

// onProgress is the engine's OnProgress: it reads the server's CPU time
// at each tick and its memory at the first tick past the middle.
func (m *measure) onProgress(pr engine.Progress) {
	if m.p.costNote() != "" || pr.Elapsed > m.dur-m.tick/2 {
		return
	}
	m.pending += pr.Txn.Cnt + pr.Txn.Failures()
	m.probeCPU += m.pr.do(func() {
		if c, err := m.p.cpu(); err == nil {
			m.readCPU(pr.Elapsed, c)
		}
		if !m.memTried && pr.Elapsed >= m.dur/2 {
			m.memTried = true
			m.mem, _ = m.p.memory()
		}
	})
}

// readCPU records one tick's CPU time.
func (m *measure) readCPU(elapsed time.Duration, c cpuTime) {
	r := &tickRead{elapsed, c}
	if m.first == nil {
		m.first, m.pending = r, 0
		return
	}
	m.last = r
	m.windowReq += m.pending
	m.pending = 0
}

// end waits for the sample's connections to leave the server and returns
// the server's cost; requests is the sample's total.
func (m *measure) end(ctx context.Context, requests int64) *Server {
	if !m.p.settle(ctx) {
		m.notef("the sample's connections were still open on the server %v after it ended", settleTimeout)
	}
	s := &Server{Name: m.p.name(), Memory: m.mem}
	if after, err := m.p.counters(ctx); err == nil && m.before.counters != nil {
		s.Counters = map[string]int64{}
		for k, v := range after {
			s.Counters[k] = v - m.before.counters[k]
		}
	}
	if note := m.p.costNote(); note != "" {
		m.notef("CPU and memory not measured: %s", note)
	} else {
		s.CPU = m.cpu(requests)
		if s.Memory == nil {
			m.notef("memory not measured: the sample had no tick past its middle")
		}
	}
	s.Notes = m.notes
	return s
}

// cpu is the CPU time of the steady window, or of the whole sample when
// there was no window (two ticks are needed).
func (m *measure) cpu(requests int64) *CPU {
	if m.first != nil && m.last != nil && m.windowReq > 0 {
		return newCPU("steady", m.last.cpu, m.first.cpu, (m.last.elapsed - m.first.elapsed).Seconds(), m.windowReq)
	}
	after, err := m.p.cpu()
	if err != nil || m.before.cpuErr != nil || requests == 0 {
		m.notef("CPU not measured: %v", firstErr(m.before.cpuErr, err))
		return nil
	}
	m.notef("CPU measured over the whole sample, connection set-up and tear-down included")
	return newCPU("sample", after, m.before.cpu, time.Since(m.before.at).Seconds(), requests)
}

func newCPU(window string, b, a cpuTime, secs float64, requests int64) *CPU {
	c := &CPU{Window: window, WindowS: secs, Requests: requests, UserS: micro(b.user - a.user), SysS: micro(b.sys - a.sys)}
	if requests > 0 {
		c.UsPerReq = (c.UserS + c.SysS) * 1e6 / float64(requests)
	}
	return c
}

// micro rounds seconds to microseconds, the servers' own resolution at
// best, so that differences of tick counts do not print as 0.30000000000000004.
func micro(s float64) float64 { return math.Round(s*1e6) / 1e6 }

func (m *measure) notef(format string, args ...any) {
	m.notes = append(m.notes, fmt.Sprintf(format, args...))
}

// firstErr returns the first error that is not nil, or one saying that no
// request was served.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return fmt.Errorf("no request was served")
}
