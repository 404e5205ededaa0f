package schema

import (
	"fmt"
	"math"
	"slices"
)

// Limits on a plan, which Config and Read enforce: far above any real
// plan, they keep the report of a result edited by hand small.
const (
	maxPlanPaths = 32
	// MaxPlanCells bounds paths × keys × connections.
	MaxPlanCells = 10000
	// maxRepeats bounds the repeats of a cell.
	maxRepeats = 10000
)

// validate checks what a report relies on in a result, naming the first
// field that is wrong: a plan of distinct paths, key counts and
// connection counts, samples that belong to the plan, sound figures.
func (r *Result) validate() error {
	v := &validator{}
	p := &r.Plan
	v.check(len(p.Paths) <= maxPlanPaths, "plan.paths", "lists %d paths, more than %d", len(p.Paths), maxPlanPaths)
	var names []string
	for i, pp := range p.Paths {
		v.check(pp.Name != "" && !slices.Contains(names, pp.Name), fmt.Sprintf("plan.paths[%d].name", i), "%q is empty or repeated", pp.Name)
		names = append(names, pp.Name)
	}
	v.check(len(p.Mixes) <= maxPlanPaths, "plan.mixes", "lists %d mixes, more than %d", len(p.Mixes), maxPlanPaths)
	var mixes []string
	for i, m := range p.Mixes {
		v.check(m.Name != "" && !slices.Contains(mixes, m.Name), fmt.Sprintf("plan.mixes[%d].name", i), "%q is empty or repeated", m.Name)
		mixes = append(mixes, m.Name)
		for j, w := range m.Weights {
			v.check(w.Weight >= 0, fmt.Sprintf("plan.mixes[%d].weights[%d].weight", i, j), "is %d, not a weight from 0", w.Weight)
		}
	}
	if p.Threshold != "" {
		_, err := ParseCellThresholds(p.Threshold)
		v.check(err == nil, "plan.threshold", "%v", err)
	}
	for i, pp := range p.Paths {
		if pp.Threshold != "" {
			_, err := ParseCellThresholds(pp.Threshold)
			v.check(err == nil, fmt.Sprintf("plan.paths[%d].threshold", i), "%v", err)
		}
	}
	v.distinct("plan.keys", p.Keys)
	v.distinct("plan.connections", p.Connections)
	v.check(len(p.Connections) > 0, "plan.connections", "is empty")
	for i, x := range p.Rates {
		v.check(x >= 0 && !math.IsInf(x, 0) && !slices.Contains(p.Rates[:i], x), fmt.Sprintf("plan.rates[%d]", i), "is %v: rates are from 0, each once", x)
	}
	if v.err != nil {
		return v.err
	}
	cells := p.CellCount()
	v.check(cells <= MaxPlanCells, "plan", "has %d cells, more than %d", cells, MaxPlanCells)
	v.check(p.Repeats >= 1 && p.Repeats <= maxRepeats, "plan.repeats", "is %d, not from 1 to %d", p.Repeats, maxRepeats)
	v.number("plan.duration_s", p.DurationS)
	v.check(p.Requests >= 0, "plan.requests", "is %d, not a count from 0", p.Requests)
	v.number("plan.interval_s", p.IntervalS)
	v.number("plan.warmup_s", p.WarmupS)
	v.check(p.HotRows >= 0, "plan.hot_rows", "is %d, not a count from 0", p.HotRows)
	if v.err != nil {
		return v.err
	}
	v.check(len(r.Samples) <= cells*p.Repeats, "samples", "are %d, more than the plan's %d", len(r.Samples), cells*p.Repeats)
	failed := 0
	for i := range r.Samples {
		v.sample(fmt.Sprintf("samples[%d]", i), &r.Samples[i], names, p)
		if r.Samples[i].Failed() {
			failed++
		}
	}
	v.check(r.FailedSamples == failed, "failed_samples", "is %d, but %d samples have an error", r.FailedSamples, failed)
	return v.err
}

type validator struct{ err error }

func (v *validator) check(ok bool, field, format string, args ...any) {
	if !ok && v.err == nil {
		v.err = fmt.Errorf("%s %s", field, fmt.Sprintf(format, args...))
	}
}

func (v *validator) number(field string, x float64) {
	v.check(x >= 0 && !math.IsInf(x, 0), field, "is %v, not a number from 0", x)
}

// distinct checks a list of counts from 1 without repeats.
func (v *validator) distinct(field string, xs []int) {
	for i, x := range xs {
		v.check(x >= 1 && !slices.Contains(xs[:i], x), fmt.Sprintf("%s[%d]", field, i), "is %d: counts are from 1, each once", x)
	}
}

// sample checks that a sample belongs to the plan and that its figures
// are sound.
func (v *validator) sample(field string, s *Sample, paths []string, p *Plan) {
	v.check(slices.Contains(paths, s.Path), field+".path", "%q is not a path of the plan", s.Path)
	v.check(slices.Contains(p.MixList(), s.Mix), field+".mix", "%q is not a mix of the plan", s.Mix)
	v.check(slices.Contains(p.KeyList(), s.Keys), field+".keys", "%d is not in the plan", s.Keys)
	v.check(slices.Contains(p.Connections, s.Connections), field+".connections", "%d is not in the plan", s.Connections)
	v.check(slices.Contains(p.RateList(), s.Rate), field+".rate", "%v is not in the plan", s.Rate)
	v.check(s.Repeat >= 1 && s.Repeat <= p.Repeats, field+".repeat", "is %d, not from 1 to %d", s.Repeat, p.Repeats)
	l := &s.Latency
	for _, f := range []struct {
		name string
		x    float64
	}{
		{"bench_s", s.BenchS}, {"connect_s", s.ConnectS}, {"req_s", s.ReqS}, {"load1", s.Load1},
		{"latency.mean_us", l.MeanUs}, {"latency.stddev_us", l.StddevUs}, {"latency.p50_us", float64(l.P50Us)},
		{"latency.p90_us", float64(l.P90Us)}, {"latency.p99_us", float64(l.P99Us)},
		{"latency.p99_9_us", float64(l.P999Us)}, {"latency.max_us", float64(l.MaxUs)},
		{"client.cpu_us_per_req", s.Client.CPUUsPerReq}, {"requests", float64(s.Requests)}, {"failures", float64(s.Failures)},
	} {
		v.number(field+"."+f.name, f.x)
	}
	if c := s.RESP; c != nil {
		for _, f := range []struct {
			name string
			x    float64
		}{
			{"hits", float64(c.Hits)}, {"misses", float64(c.Misses)}, {"field_hits", float64(c.FieldHits)},
			{"field_misses", float64(c.FieldMisses)}, {"bytes_sent", float64(c.BytesSent)},
			{"bytes_received", float64(c.BytesReceived)}, {"hits_per_req", c.HitsPerReq},
			{"bytes_sent_per_req", c.BytesSentPerReq}, {"bytes_received_per_req", c.BytesReceivedPerReq},
		} {
			v.number(field+".resp."+f.name, f.x)
		}
	}
	if s.Server != nil && s.Server.CPU != nil {
		v.number(field+".server.cpu.us_per_req", s.Server.CPU.UsPerReq)
	}
	if s.Server != nil && s.Server.Memory != nil {
		v.number(field+".server.memory.bytes", float64(s.Server.Memory.Bytes))
	}
	if s.Server != nil {
		v.cpuSeries(field+".server.cpu_series", s.Server.CPUSeries)
	}
	for i, o := range s.OtherServers {
		if o.CPU != nil {
			v.number(fmt.Sprintf("%s.other_servers[%d].cpu.us_per_req", field, i), o.CPU.UsPerReq)
		}
		v.cpuSeries(fmt.Sprintf("%s.other_servers[%d].cpu_series", field, i), o.CPUSeries)
	}
	v.check(len(s.Intervals) <= maxIntervals, field+".intervals", "are %d, more than %d", len(s.Intervals), maxIntervals)
	for i, in := range s.Intervals {
		f := fmt.Sprintf("%s.intervals[%d]", field, i)
		v.number(f+".end_s", in.EndS)
		v.number(f+".req_s", in.ReqS)
		v.number(f+".requests", float64(in.Requests))
		v.number(f+".failures", float64(in.Failures))
		v.check(i == 0 || in.EndS > s.Intervals[i-1].EndS, f+".end_s", "is %v, not after the interval before", in.EndS)
	}
}

// maxIntervals bounds a sample's series (a day of 10 ms intervals would
// be 8.6 million; a plan's interval is at least 10 ms, a sample at most a day).
const maxIntervals = 1 << 20

// cpuSeries checks a server's CPU series: finite numbers, reads in time
// order, not more than MaxCPUReads. CPU seconds are not required to grow
// (nor to stay from 0): a schedstat read may lose up to a clock tick to a
// child reaped between two reads.
func (v *validator) cpuSeries(field string, c *CPUSeries) {
	if c == nil {
		return
	}
	v.number(field+".interval_s", c.IntervalS)
	v.check(c.IntervalS > 0, field+".interval_s", "is %v, not positive", c.IntervalS)
	v.check(len(c.Reads) <= MaxCPUReads, field+".reads", "are %d, more than %d", len(c.Reads), MaxCPUReads)
	for i, r := range c.Reads {
		f := fmt.Sprintf("%s.reads[%d]", field, i)
		v.number(f+".at_s", r.AtS)
		v.check(!math.IsNaN(r.CPUS) && !math.IsInf(r.CPUS, 0), f+".cpu_s", "is %v, not a number", r.CPUS)
		v.check(i == 0 || r.AtS > c.Reads[i-1].AtS, f+".at_s", "is %v, not after the read before", r.AtS)
	}
}
