package matrix

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/runenv"
)

// ticksPerSample is how many progress ticks a sample of a fixed duration
// gets when the plan records no series. The server's CPU time is read at
// each tick but the last (too close to the end), and the window between
// the first and the last read is the sample's steady part: every
// connection is open and busy, none is being set up or torn down. With 5
// ticks in 5 s that is the 3 s from 1 s to 4 s.
const ticksPerSample = 5

// countTick is the tick of a sample of a fixed request count without a
// series: its length is not known beforehand.
const countTick = 250 * time.Millisecond

// measure follows one sample's server cost on every server its path talks
// to (the first is the one the sample records as Server): counters before
// and after the run, CPU and memory at the progress ticks during it, and
// the sample's series when the plan asks for one.
type measure struct {
	servers []*serverMeasure
	pr      *prober
	// dur is the sample's duration; 0 for a fixed request count, whose
	// end is not known until it comes.
	dur, tick time.Duration
	series    bool
	now       func() time.Time // the clock of the CPU reads
	// cached reads the path's cache entries; nil when it has no count.
	cached      func() (int64, error)
	cachedStart *int64
	cachedNote  string
	intervals   []schema.Interval
	total       int64 // requests completed up to the last tick
	ticks       int
	memTried    bool
	probeCPU    time.Duration // the probes' CPU time during the run
	// waitInterval is the period of the wait-state reads.
	waitInterval time.Duration
	// memStop ends the memory sampler, which closes memDone; memCPU is
	// the probe CPU it took, read after memDone.
	memStop, memDone chan struct{}
	memCPU           time.Duration
}

// serverMeasure is what one server's probe saw.
type serverMeasure struct {
	p      probe
	notes  []string
	before map[string]int64
	reads  []tickRead
	mem    *schema.Memory
	// res follows the server's cgroups; resources is its record.
	res       *resourceMeasure
	resources *schema.Resources
	// waits samples pg_stat_activity; waitEvents is its profile,
	// waitsNote why there is none.
	waits      *runenv.WaitSampler
	waitEvents *schema.WaitEvents
	waitsNote  string
	// series follows the CPU time over the sample until its end; then
	// cpuSeries is its record, cpuSeriesNote why there is none.
	// series stays, ended, for tests to read its start.
	series        *cpuSeries
	cpuSeries     *schema.CPUSeries
	cpuSeriesNote string
}

// tickRead is the server's CPU time at a tick, when it was read, and how
// many requests had completed by then.
type tickRead struct {
	at       time.Time
	elapsed  time.Duration
	cpu      cpuTime
	requests int64
}

// newMeasure follows a sample of dur (0 for a fixed request count) whose
// path's first server is p; interval, when set, is the plan's series
// interval, which is then also the tick.
func newMeasure(p probe, pr *prober, dur, interval time.Duration) *measure {
	m := &measure{pr: pr, dur: dur, now: time.Now, series: interval > 0}
	switch {
	case interval > 0:
		m.tick = interval
	case dur > 0:
		m.tick = dur / ticksPerSample
	default:
		m.tick = countTick
	}
	m.add(p)
	return m
}

// add follows one more server.
func (m *measure) add(p probe) { m.servers = append(m.servers, &serverMeasure{p: p}) }

// begin reads the servers' state before the sample.
func (m *measure) begin(ctx context.Context) {
	for _, s := range m.servers {
		s.p.mark()
		var err error
		if s.before, err = s.p.counters(ctx); err != nil {
			s.notef("counters not read: %v", err)
		}
	}
	if m.cached != nil {
		if n, err := m.cached(); err == nil {
			m.cachedStart = &n
		} else {
			m.cachedNote = err.Error()
		}
	}
	sampled := false
	for _, s := range m.servers {
		s.series, s.cpuSeriesNote = startCPUSeries(s.p, m.now)
		sampled = sampled || s.series != nil
		if cg := s.p.cgroups(); cg.any() {
			s.res = beginResources(cg, m.now())
			sampled = true
		}
		if conn, note := s.p.waitConn(); conn != nil {
			w, err := runenv.StartWaits(ctx, conn, m.waitInterval)
			if err != nil {
				s.waitsNote = err.Error()
			}
			s.waits = w
		} else {
			s.waitsNote = note
		}
	}
	if sampled {
		m.startSampler()
	}
}

// startSampler reads the servers' cgroup memory and CPU time every
// memInterval (cpuSeriesInterval) on the prober thread, until
// stopSampling.
func (m *measure) startSampler() {
	m.memStop, m.memDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(m.memDone)
		t := time.NewTicker(memInterval)
		defer t.Stop()
		for {
			select {
			case <-m.memStop:
				return
			case <-t.C:
			}
			m.memCPU += m.pr.do(func() {
				for _, s := range m.servers {
					if s.res != nil {
						s.res.readMemory(m.now())
					}
					if s.series != nil && !s.series.ended {
						s.series.read(m.now)
					}
				}
			})
		}
	}()
}

// stopSampling ends the memory, CPU and wait-state samplers and takes the
// record of the sample's end; the first call does, later ones find
// nothing to stop.
func (m *measure) stopSampling() {
	if m.memStop != nil {
		close(m.memStop)
		<-m.memDone
		m.probeCPU += m.memCPU
		m.memStop = nil
	}
	for _, s := range m.servers {
		if s.res != nil {
			s.resources = s.res.end(m.now())
			s.res = nil
		}
		if s.waits != nil {
			s.waitEvents = s.waits.Stop()
			s.waits = nil
		}
		if s.series != nil && !s.series.ended {
			s.cpuSeries, s.cpuSeriesNote = s.series.end(m.now)
		}
	}
}

// onProgress is the engine's OnProgress: it records the interval, reads
// the servers' CPU time at each tick and their memory once, in the middle.
func (m *measure) onProgress(pr engine.Progress) {
	m.ticks++
	m.total += pr.Txn.Cnt + pr.Txn.Failures()
	var in *schema.Interval
	if m.series {
		m.intervals = append(m.intervals, newInterval(pr))
		in = &m.intervals[len(m.intervals)-1]
	}
	readCPU := m.dur == 0 || pr.Elapsed <= m.dur-m.tick/2
	readMem := !m.memTried && (m.dur > 0 && pr.Elapsed >= m.dur/2 || m.dur == 0 && m.ticks >= 2)
	m.memTried = m.memTried || readMem
	if !readCPU && !readMem && m.cached == nil {
		return
	}
	m.probeCPU += m.pr.do(func() {
		if in != nil && m.cached != nil {
			if n, err := m.cached(); err == nil {
				in.Cached = &n
			} else if m.cachedNote == "" {
				m.cachedNote = err.Error()
			}
		}
		for _, s := range m.servers {
			if s.p.costNote() != "" {
				continue
			}
			if readCPU {
				if c, err := s.p.cpu(); err == nil {
					s.reads = append(s.reads, tickRead{m.now(), pr.Elapsed, c, m.total})
				} else if len(s.reads) > 0 {
					s.notef("a CPU read failed during the sample: %v", err)
				}
			}
			if readMem {
				s.mem, _ = s.p.memory()
			}
		}
	})
}

// newInterval is the series entry of a progress report.
func newInterval(pr engine.Progress) schema.Interval {
	t := pr.Txn
	in := schema.Interval{EndS: micro(pr.Elapsed.Seconds()), Requests: t.Cnt, Failures: t.Failures()}
	if secs := pr.Interval.Seconds(); secs > 0 {
		in.ReqS = float64(t.Cnt) / secs
	}
	if t.Hist.Count() > 0 {
		p50, p99 := t.Hist.Quantile(50), t.Hist.Quantile(99)
		in.P50Us, in.P99Us = &p50, &p99
	}
	return in
}

// end waits for the sample's connections to leave the servers and puts
// their cost and the series into s.
func (m *measure) end(ctx context.Context, s *schema.Sample) {
	m.stopSampling()
	for i, sm := range m.servers {
		srv := m.server(ctx, sm)
		if i == 0 {
			s.Server = srv
		} else {
			s.OtherServers = append(s.OtherServers, *srv)
		}
	}
	if m.series {
		s.Intervals = m.intervals
	}
	s.CachedStart = m.cachedStart
	if m.cachedNote != "" && s.Server != nil {
		s.Server.Notes = append(s.Server.Notes, "the cache's entries were not counted: "+m.cachedNote)
	}
}

// server is one server's cost over the sample.
func (m *measure) server(ctx context.Context, sm *serverMeasure) *schema.Server {
	if !sm.p.settle(ctx) {
		sm.notef("the sample's connections were still open on the server %v after it ended", settleTimeout)
	}
	s := &schema.Server{Name: sm.p.name(), Memory: sm.mem, Resources: sm.resources, WaitEvents: sm.waitEvents,
		CPUSeries: sm.cpuSeries, CPUSeriesNote: sm.cpuSeriesNote}
	if s.Resources == nil {
		s.ResourcesNote = "the server has no cgroup of gbench's (only a sandbox's servers have)"
		if note := sm.p.cgroups().Note; note != "" {
			s.ResourcesNote = note
		}
	}
	if s.WaitEvents == nil && sm.waitsNote != "" {
		s.WaitEventsNote = sm.waitsNote
	}
	if after, err := sm.p.counters(ctx); err == nil && sm.before != nil {
		s.Counters = map[string]int64{}
		for k, v := range after {
			s.Counters[k] = v - sm.before[k]
		}
	}
	if note := sm.p.costNote(); note != "" {
		sm.notef("CPU and memory not measured: %s", note)
	} else {
		s.CPU, s.CPUNote = m.cpu(sm)
		if s.Memory == nil {
			sm.notef("memory not measured: the sample had no tick past its middle")
		}
	}
	s.Notes = sm.notes
	return s
}

// cpu is the server's CPU time over the steady window, between the first
// and the last CPU read at the sample's progress ticks; with the reason
// instead when the window cannot give a figure that is right: too few
// reads, a window too short (the ticks came late, on a loaded machine),
// no request in it, or a CPU difference too small for the resolution of
// its source. A refused figure is absent, never approximate.
//
// A sample of a fixed request count ends when its last connection is
// done, with the others finishing before it; its last read is left out,
// so that the window ends a tick before the tail.
func (m *measure) cpu(sm *serverMeasure) (*schema.CPU, string) {
	reads := sm.reads
	if m.dur == 0 && len(reads) > 0 {
		reads = reads[:len(reads)-1]
	}
	if len(reads) < 2 {
		return nil, "the sample's steady part had fewer than two CPU reads"
	}
	first, last := reads[0], reads[len(reads)-1]
	secs := last.at.Sub(first.at).Seconds()
	if need := m.minWindow(first, last).Seconds(); secs < need {
		return nil, fmt.Sprintf("the steady window lasted %.3f s, less than the %.3f s needed (late progress ticks on a loaded machine?)", secs, need)
	}
	requests := last.requests - first.requests
	if requests <= 0 {
		return nil, "no request completed in the steady window"
	}
	c := newCPU(last.cpu, first.cpu, secs, requests)
	used := c.UserS + c.SysS
	// Three standard deviations of the reads' rounding must stay within
	// maxCPUError of the figure.
	if unc := 3 * math.Hypot(first.cpu.sigma, last.cpu.sigma); used <= 0 || unc > maxCPUError*used {
		return nil, fmt.Sprintf("%.3f s of CPU from %s cannot be told within %.0f%%: its reads are rounded by ±%.3f s (3σ)",
			used, last.cpu.source, maxCPUError*100, unc)
	}
	return c, ""
}

// maxCPUError is the largest relative rounding error (at three standard
// deviations) a server CPU figure may carry.
const maxCPUError = 0.05

// minWindow is the shortest steady window a CPU figure may come from:
// half of the planned one. For a sample of a fixed duration that is the
// window from the first tick to the last one read (from 1 s to 4 s of 5
// s); for a fixed request count, whose length is not known, the span of
// the ticks the two reads came at.
func (m *measure) minWindow(first, last tickRead) time.Duration {
	if m.dur > 0 {
		lastTick := int((m.dur - m.tick/2) / m.tick)
		return m.tick * time.Duration(lastTick-1) / 2
	}
	return m.tick * time.Duration(int(last.elapsed/m.tick)-int(first.elapsed/m.tick)) / 2
}

func newCPU(b, a cpuTime, secs float64, requests int64) *schema.CPU {
	user, sys := b.user-a.user, b.sys-a.sys
	if b.exact {
		// The exact total, split between user and system as the clock
		// ticks of the same window are.
		used := b.used() - a.used()
		if user+sys > 0 {
			user, sys = used*user/(user+sys), used*sys/(user+sys)
		} else {
			user, sys = used, 0
		}
	}
	c := &schema.CPU{Window: "steady", Source: b.source, WindowS: micro(secs), Requests: requests, UserS: micro(user), SysS: micro(sys)}
	if requests > 0 {
		c.UsPerReq = (c.UserS + c.SysS) * 1e6 / float64(requests)
	}
	return c
}

// micro rounds seconds to microseconds, the servers' own resolution at
// best, so that differences of tick counts do not print as 0.30000000000000004.
func micro(s float64) float64 { return math.Round(s*1e6) / 1e6 }

func (sm *serverMeasure) notef(format string, args ...any) {
	sm.notes = append(sm.notes, fmt.Sprintf(format, args...))
}
