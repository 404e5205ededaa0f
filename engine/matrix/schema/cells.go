package schema

import (
	"slices"

	"github.com/gbench/gbench/engine/series"
)

// Cell sums up the valid samples of one path, key count and connection
// count: the median of each figure over the repeats, and the range of the
// throughput.
type Cell struct {
	Path        string
	Keys        int
	Connections int
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
	// MemoryBytes is the median server memory over the samples that
	// measured it, of kind MemoryKind ("" when none did).
	MemoryBytes float64
	MemoryKind  string
}

// Cells sums up r's valid samples by cell, in plan order: paths, then keys
// per request, then connections. Every cell of the plan is there, with
// Samples 0 when none of its samples is valid.
func (r *Result) Cells() []Cell {
	type id struct {
		path        string
		keys, conns int
	}
	byCell := map[id][]*Sample{}
	for i := range r.Samples {
		s := &r.Samples[i]
		if s.Valid() {
			k := id{s.Path, s.Keys, s.Connections}
			byCell[k] = append(byCell[k], s)
		}
	}
	var out []Cell
	for _, p := range r.Plan.Paths {
		for _, k := range r.Plan.Keys {
			for _, n := range r.Plan.Connections {
				out = append(out, cell(p.Name, k, n, byCell[id{p.Name, k, n}]))
			}
		}
	}
	return out
}

// cell sums up the valid samples of path, keys and conns.
func cell(path string, keys, conns int, samples []*Sample) Cell {
	c := Cell{Path: path, Keys: keys, Connections: conns}
	var reqs, mean, p50, p90, p99, p999, mx, client, server, mem []float64
	for _, s := range samples {
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
		if s.Server != nil && s.Server.Memory != nil {
			mem = append(mem, float64(s.Server.Memory.Bytes))
			c.MemoryKind = s.Server.Memory.Kind
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
	c.MemoryBytes = Median(mem)
	return c
}

// Median returns the median of xs (series.Median).
func Median(xs []float64) float64 { return series.Median(xs) }

// Missing returns how many planned samples the result lacks or holds as
// failed or interrupted.
func (r *Result) Missing() int {
	planned := len(r.Plan.Paths) * len(r.Plan.Keys) * len(r.Plan.Connections) * r.Plan.Repeats
	valid := 0
	for i := range r.Samples {
		if r.Samples[i].Valid() {
			valid++
		}
	}
	return planned - valid
}
