package schema

import (
	"cmp"
	"slices"
	"strings"
)

// Cell sums up the valid samples of one cell: a path, a mix, a keys per
// request, a connection count and a rate. It holds the median of each
// figure over the repeats, and the range of the throughput.
type Cell struct {
	Path string
	// Mix is "" and Rate 0 when the plan does not vary them; Keys is 0 in a
	// plan without keys per request.
	Mix         string
	Keys        int
	Connections int
	Rate        float64
	// Samples is the number of valid samples summed up; 0 when none is, and
	// then every figure is zero.
	Samples int
	// ReqS is the median throughput, MinReqS and MaxReqS its range.
	ReqS, MinReqS, MaxReqS float64
	// Latency medians, in microseconds.
	MeanUs, P50Us, P90Us, P99Us, P999Us, MaxUs float64
	// ClientUsPerReq is the median client CPU time per request.
	ClientUsPerReq float64
	// ServerUsPerReq is the median server CPU time per request over the
	// samples that measured it; ServerCPU says whether any did.
	ServerUsPerReq float64
	ServerCPU      bool
	// ServerSamples is how many samples measured the server's CPU.
	ServerSamples int
	// OtherUsPerReq is the median over the samples that measured it of the
	// CPU time per request of the other servers the path talks to
	// (Sample.OtherServers), summed; OtherCPU says whether any did.
	OtherUsPerReq float64
	OtherCPU      bool
	// RESPSamples is how many samples recorded \resp counters
	// (Sample.RESP); HitsPerReq, BytesSentPerReq and BytesReceivedPerReq
	// are their medians. MissRatio is the median miss ratio over the
	// samples that read keys; MissSamples how many did.
	RESPSamples                                  int
	HitsPerReq, BytesSentPerReq, BytesRecvPerReq float64
	MissRatio                                    float64
	MissSamples                                  int
	// MemoryBytes is the median server memory over the samples that
	// measured it, of kind MemoryKind ("" when none did).
	MemoryBytes float64
	MemoryKind  string
	// CgroupPeakBytes is the median over the samples that recorded it of
	// each sample's peak cgroup memory (Resources.Memory.PeakBytes), as
	// the reference reports memory; CgroupPeak says whether any did.
	CgroupPeakBytes float64
	CgroupPeak      bool
	// IO is the median block I/O over the samples that recorded it.
	IO *BlockIO
	// Throttled is the median count of throttled CPU periods over the
	// samples that recorded it; Throttling says whether any did.
	Throttled  float64
	Throttling bool
	// MemoryEvents are the memory events summed over the samples.
	MemoryEvents map[string]int64
	// WaitEvents is the wait-state profile of the samples together, by
	// count, largest first; WaitReads the reads it comes from.
	WaitEvents []WaitEvent
	WaitReads  int64
}

// CellID identifies a cell.
type CellID struct {
	Path        string
	Mix         string
	Keys        int
	Connections int
	Rate        float64
}

// ID returns the cell's identity.
func (c *Cell) ID() CellID { return CellID{c.Path, c.Mix, c.Keys, c.Connections, c.Rate} }

// ID returns the identity of the sample's cell.
func (s *Sample) ID() CellID { return CellID{s.Path, s.Mix, s.Keys, s.Connections, s.Rate} }

// KeyList returns the plan's keys per request, or one 0 for a plan
// without them: the values samples take.
func (p *Plan) KeyList() []int {
	if len(p.Keys) == 0 {
		return []int{0}
	}
	return p.Keys
}

// MixList returns the names of the plan's mixes, or one "" for a plan
// without them.
func (p *Plan) MixList() []string {
	if len(p.Mixes) == 0 {
		return []string{""}
	}
	out := make([]string, len(p.Mixes))
	for i, m := range p.Mixes {
		out[i] = m.Name
	}
	return out
}

// RateList returns the plan's rates, or one 0 (unthrottled) for a plan
// without them.
func (p *Plan) RateList() []float64 {
	if len(p.Rates) == 0 {
		return []float64{0}
	}
	return p.Rates
}

// CellCount is the number of cells: paths × mixes × keys × connections ×
// rates.
func (p *Plan) CellCount() int {
	return len(p.Paths) * len(p.MixList()) * len(p.KeyList()) * len(p.Connections) * len(p.RateList())
}

// Planned is the number of samples the plan asks for.
func (p *Plan) Planned() int { return p.CellCount() * p.Repeats }

// CellIDs lists the plan's cells in plan order: paths, then mixes, keys
// per request, connections and rates.
func (p *Plan) CellIDs() []CellID {
	var out []CellID
	for _, pp := range p.Paths {
		for _, m := range p.MixList() {
			for _, k := range p.KeyList() {
				for _, n := range p.Connections {
					for _, rate := range p.RateList() {
						out = append(out, CellID{pp.Name, m, k, n, rate})
					}
				}
			}
		}
	}
	return out
}

// Cells sums up r's valid samples by cell, in plan order (CellIDs). Every
// cell of the plan is there, with Samples 0 when none of its samples is
// valid.
func (r *Result) Cells() []Cell {
	byCell := r.SamplesByCell()
	var out []Cell
	for _, id := range r.Plan.CellIDs() {
		out = append(out, cell(id, byCell[id]))
	}
	return out
}

// SamplesByCell returns r's valid samples by cell, in run order.
func (r *Result) SamplesByCell() map[CellID][]*Sample {
	byCell := map[CellID][]*Sample{}
	for i := range r.Samples {
		s := &r.Samples[i]
		if s.Valid() {
			byCell[s.ID()] = append(byCell[s.ID()], s)
		}
	}
	return byCell
}

// cell sums up the valid samples of a cell.
func cell(id CellID, samples []*Sample) Cell {
	c := Cell{Path: id.Path, Mix: id.Mix, Keys: id.Keys, Connections: id.Connections, Rate: id.Rate}
	var reqs, mean, p50, p90, p99, p999, mx, client, server, other, mem []float64
	var res cellResources
	var rc cellRESP
	for _, s := range samples {
		rc.add(s.RESP)
		reqs = append(reqs, s.ReqS)
		l := &s.Latency
		mean = append(mean, l.MeanUs)
		p50, p90 = append(p50, float64(l.P50Us)), append(p90, float64(l.P90Us))
		p99, p999 = append(p99, float64(l.P99Us)), append(p999, float64(l.P999Us))
		mx = append(mx, float64(l.MaxUs))
		client = append(client, s.Client.CPUUsPerReq)
		if s.Server != nil && s.Server.CPU != nil {
			server = append(server, s.Server.CPU.UsPerReq)
		}
		if us, ok := s.otherCPU(); ok {
			other = append(other, us)
		}
		if s.Server != nil && s.Server.Memory != nil {
			mem = append(mem, float64(s.Server.Memory.Bytes))
			c.MemoryKind = s.Server.Memory.Kind
		}
		if s.Server != nil {
			res.add(s.Server)
		}
	}
	c.Samples = len(reqs)
	if c.Samples == 0 {
		return c
	}
	c.ReqS, c.MinReqS, c.MaxReqS = Median(reqs), slices.Min(reqs), slices.Max(reqs)
	c.MeanUs, c.P50Us, c.P90Us = Median(mean), Median(p50), Median(p90)
	c.P99Us, c.P999Us, c.MaxUs = Median(p99), Median(p999), Median(mx)
	c.ClientUsPerReq = Median(client)
	c.ServerCPU, c.ServerSamples = len(server) > 0, len(server)
	c.ServerUsPerReq = Median(server)
	c.OtherCPU, c.OtherUsPerReq = len(other) > 0, Median(other)
	c.MemoryBytes = Median(mem)
	res.fill(&c)
	rc.fill(&c)
	return c
}

// cellRESP gathers the \resp counters of a cell's samples.
type cellRESP struct{ hits, sent, recv, miss []float64 }

func (r *cellRESP) add(c *RESPCounters) {
	if c == nil {
		return
	}
	r.hits, r.sent, r.recv = append(r.hits, c.HitsPerReq), append(r.sent, c.BytesSentPerReq), append(r.recv, c.BytesReceivedPerReq)
	if x, ok := c.MissRatio(); ok {
		r.miss = append(r.miss, x)
	}
}

func (r *cellRESP) fill(c *Cell) {
	c.RESPSamples, c.MissSamples = len(r.hits), len(r.miss)
	c.HitsPerReq, c.BytesSentPerReq, c.BytesRecvPerReq = Median(r.hits), Median(r.sent), Median(r.recv)
	c.MissRatio = Median(r.miss)
}

// cellResources gathers the resource records and wait profiles of a
// cell's samples.
type cellResources struct {
	peak, rb, wb, ro, wo, thr []float64
	events                    map[string]int64
	waits                     map[WaitEvent]int64
	reads                     int64
}

func (r *cellResources) add(s *Server) {
	if x := s.Resources; x != nil {
		if x.Memory != nil {
			r.peak = append(r.peak, float64(x.Memory.PeakBytes))
		}
		if x.IO != nil {
			r.rb, r.wb = append(r.rb, float64(x.IO.ReadBytes)), append(r.wb, float64(x.IO.WriteBytes))
			r.ro, r.wo = append(r.ro, float64(x.IO.ReadOps)), append(r.wo, float64(x.IO.WriteOps))
		}
		if x.Throttling != nil {
			r.thr = append(r.thr, float64(x.Throttling.Throttled))
		}
		for k, v := range x.MemoryEvents {
			if r.events == nil {
				r.events = map[string]int64{}
			}
			r.events[k] += v
		}
	}
	if w := s.WaitEvents; w != nil {
		if r.waits == nil {
			r.waits = map[WaitEvent]int64{}
		}
		r.reads += w.Reads
		for _, e := range w.Events {
			r.waits[WaitEvent{State: e.State, Type: e.Type, Event: e.Event}] += e.Count
		}
	}
}

func (r *cellResources) fill(c *Cell) {
	if len(r.peak) > 0 {
		c.CgroupPeak, c.CgroupPeakBytes = true, Median(r.peak)
	}
	if len(r.rb) > 0 {
		c.IO = &BlockIO{ReadBytes: int64(Median(r.rb)), WriteBytes: int64(Median(r.wb)), ReadOps: int64(Median(r.ro)), WriteOps: int64(Median(r.wo))}
	}
	if len(r.thr) > 0 {
		c.Throttling, c.Throttled = true, Median(r.thr)
	}
	c.MemoryEvents = r.events
	if r.waits == nil {
		return
	}
	var total int64
	for _, n := range r.waits {
		total += n
	}
	for e, n := range r.waits {
		e.Count = n
		if total > 0 {
			e.Share = float64(n) / float64(total)
		}
		c.WaitEvents = append(c.WaitEvents, e)
	}
	slices.SortFunc(c.WaitEvents, func(a, b WaitEvent) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return strings.Compare(a.Name(), b.Name())
	})
	c.WaitReads = r.reads
}

// otherCPU sums the CPU per request of the sample's other servers; false
// when it has none or one of them was not measured.
func (s *Sample) otherCPU() (float64, bool) {
	sum := 0.0
	for _, o := range s.OtherServers {
		if o.CPU == nil {
			return 0, false
		}
		sum += o.CPU.UsPerReq
	}
	return sum, len(s.OtherServers) > 0
}

// Median returns the median of xs, the mean of the two middle values for
// an even count, 0 for none. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Missing returns how many planned samples the result lacks or holds as
// failed or interrupted.
func (r *Result) Missing() int {
	valid := 0
	for i := range r.Samples {
		if r.Samples[i].Valid() {
			valid++
		}
	}
	return r.Plan.Planned() - valid
}
