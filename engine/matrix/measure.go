package matrix

import (
	"context"
	"fmt"
	"github.com/gbench/gbench/engine/matrix/schema"
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

// measure follows one sample's server cost: counters before and after
// the run, CPU and memory at the progress ticks during it.
type measure struct {
	p      probe
	pr     *prober
	dur    time.Duration
	tick   time.Duration
	now    func() time.Time // the clock of the CPU reads
	notes  []string
	before struct {
		counters map[string]int64
	}
	first, last *tickRead
	pending     int64 // requests since the last CPU read
	windowReq   int64 // requests between the first and the last read
	mem         *schema.Memory
	memTried    bool
	probeCPU    time.Duration // the probes' CPU time during the run
}

// tickRead is the server's CPU time at a tick, and when it was read.
type tickRead struct {
	at  time.Time
	cpu cpuTime
}

func newMeasure(p probe, pr *prober, dur time.Duration) *measure {
	return &measure{p: p, pr: pr, dur: dur, tick: dur / ticksPerSample, now: time.Now}
}

// begin reads the server's state before the sample.
func (m *measure) begin(ctx context.Context) {
	m.p.mark()
	var err error
	if m.before.counters, err = m.p.counters(ctx); err != nil {
		m.notef("counters not read: %v", err)
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
			m.readCPU(m.now(), c)
		} else if m.first != nil {
			m.notef("a CPU read failed during the sample: %v", err)
		}
		if !m.memTried && pr.Elapsed >= m.dur/2 {
			m.memTried = true
			m.mem, _ = m.p.memory()
		}
	})
}

// readCPU records one tick's CPU time.
func (m *measure) readCPU(at time.Time, c cpuTime) {
	r := &tickRead{at, c}
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
func (m *measure) end(ctx context.Context) *schema.Server {
	if !m.p.settle(ctx) {
		m.notef("the sample's connections were still open on the server %v after it ended", settleTimeout)
	}
	s := &schema.Server{Name: m.p.name(), Memory: m.mem}
	if after, err := m.p.counters(ctx); err == nil && m.before.counters != nil {
		s.Counters = map[string]int64{}
		for k, v := range after {
			s.Counters[k] = v - m.before.counters[k]
		}
	}
	if note := m.p.costNote(); note != "" {
		m.notef("CPU and memory not measured: %s", note)
	} else {
		s.CPU, s.CPUNote = m.cpu()
		if s.Memory == nil {
			m.notef("memory not measured: the sample had no tick past its middle")
		}
	}
	s.Notes = m.notes
	return s
}

// cpu is the server's CPU time over the steady window, between the first
// and the last CPU read at the sample's progress ticks; with the reason
// instead when the window cannot give a figure that is right: too few
// reads, a window too short (the ticks came late, on a loaded machine),
// no request in it, or a CPU difference too small for the resolution of
// its source. A refused figure is absent, never approximate.
func (m *measure) cpu() (*schema.CPU, string) {
	if m.first == nil || m.last == nil {
		return nil, "the sample's steady part had fewer than two CPU reads"
	}
	secs := m.last.at.Sub(m.first.at).Seconds()
	if need := m.minWindow().Seconds(); secs < need {
		return nil, fmt.Sprintf("the steady window lasted %.3f s, less than the %.3f s needed (late progress ticks on a loaded machine?)", secs, need)
	}
	if m.windowReq <= 0 {
		return nil, "no request completed in the steady window"
	}
	c := newCPU(m.last.cpu, m.first.cpu, secs, m.windowReq)
	used := c.UserS + c.SysS
	// Three standard deviations of the reads' rounding must stay within
	// maxCPUError of the figure.
	if unc := 3 * math.Hypot(m.first.cpu.sigma, m.last.cpu.sigma); used <= 0 || unc > maxCPUError*used {
		return nil, fmt.Sprintf("%.3f s of CPU from %s cannot be told within %.0f%%: its reads are rounded by ±%.3f s (3σ)",
			used, m.last.cpu.source, maxCPUError*100, unc)
	}
	return c, ""
}

// maxCPUError is the largest relative rounding error (at three standard
// deviations) a server CPU figure may carry.
const maxCPUError = 0.05

// minWindow is the shortest steady window a CPU figure may come from: half
// of the planned one (from the first to the next-to-last tick).
func (m *measure) minWindow() time.Duration {
	return m.tick * (ticksPerSample - 2) / 2
}

func newCPU(b, a cpuTime, secs float64, requests int64) *schema.CPU {
	c := &schema.CPU{Window: "steady", Source: b.source, WindowS: micro(secs), Requests: requests, UserS: micro(b.user - a.user), SysS: micro(b.sys - a.sys)}
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
