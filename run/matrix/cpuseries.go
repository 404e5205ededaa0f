package matrix

import (
	"fmt"
	"time"

	"github.com/gbench/gbench/result/schema"
)

// cpuSeriesInterval is the period of the CPU series' reads during a
// sample, as the memory's.
const cpuSeriesInterval = memInterval

// cpuSeries follows one server's CPU time over a sample, from the same
// probe (and so the same source) as the sample's CPU figure: a read at
// the start, one every cpuSeriesInterval on the sampler, one at the end.
// It is used by one goroutine at a time.
type cpuSeries struct {
	p      probe
	t0     time.Time
	origin cpuTime
	out    schema.CPUSeries
	ended  bool // end was called
}

// startCPUSeries takes the series' first read, at now; without a series,
// it says why.
func startCPUSeries(p probe, now func() time.Time) (*cpuSeries, string) {
	if note := p.costNote(); note != "" {
		return nil, "CPU not measured: " + note
	}
	c, err := p.cpu()
	if err != nil {
		return nil, "the first CPU read failed: " + err.Error()
	}
	out := schema.CPUSeries{IntervalS: cpuSeriesInterval.Seconds(), Source: c.source, Reads: []schema.CPURead{{}}}
	return &cpuSeries{p: p, t0: now(), origin: c, out: out}, ""
}

// read appends a read taken now; a failed one is left out, and the first
// failure noted. The time is taken after the read, as the progress ticks'
// reads take theirs.
func (s *cpuSeries) read(now func() time.Time) {
	c, err := s.p.cpu()
	at := micro(now().Sub(s.t0).Seconds())
	if err != nil {
		if s.out.Note == "" {
			s.out.Note = fmt.Sprintf("a read failed at %.3f s and is left out (later failures too): %v", at, err)
		}
		return
	}
	if at <= s.out.Reads[len(s.out.Reads)-1].AtS {
		return // no time since the last read: nothing a chart could draw
	}
	s.out.Reads = append(s.out.Reads, schema.CPURead{AtS: at, CPUS: micro(c.used() - s.origin.used())})
}

// end takes the last read and returns the series, or why there is none.
func (s *cpuSeries) end(now func() time.Time) (*schema.CPUSeries, string) {
	s.read(now)
	s.ended = true
	if len(s.out.Reads) < 2 {
		note := "fewer than two CPU reads over the sample"
		if s.out.Note != "" {
			note += ": " + s.out.Note
		}
		return nil, note
	}
	return &s.out, ""
}
