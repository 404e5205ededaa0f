package report

import (
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/gbench/gbench/engine/stats"
)

// Merge combines the results of separate runs of the same scripts, as if
// they were one run with all their clients: counts add up, means and
// standard deviations come from the summed sums, percentiles from the
// merged histograms, so the merge is exact. Merging merged results works
// too. The inputs are not modified.
//
// The runs are taken to have run side by side (several client machines
// against one server): clients, threads, rates and tps add up, the start is
// the earliest, the benchmarking time the longest; -P intervals are paired
// by their boundary (Interval.Index), and where the runs' boundaries
// differ (a run whose report came late and covered two), the intervals
// of all are combined up to the next boundary they share. Percentiles are
// those of the first input's configuration.
//
// Workers' results (Result.Worker, or merges of them: Result.Fleet) merge
// only with parts of the same run: the same run id, number of workers,
// whole-run clients, threads, rate and planned start, the same options
// otherwise, each worker once. The merge then describes the whole run:
// its tps is the processed transactions over the benchmarking time, as one
// run's, and its Fleet lists the workers merged, missing and late.
//
// Inputs must have the same scripts (names, weights, command texts) and
// either all or none per-command statistics; otherwise Merge returns an
// error naming the first difference (a *MergeError). Inputs are taken to
// be valid (ReadResult checks them); a merge whose sums would not be (a
// count beyond 2^53) is refused.
func Merge(in []*Result) (*Result, error) {
	if len(in) == 0 {
		return nil, errors.New("nothing to merge")
	}
	seen := map[int]int{}
	shards := false
	if s, ok := shardInfo(in[0]); ok {
		shards = true
		for _, k := range s.indexes {
			seen[k] = 0
		}
	}
	for i := 1; i < len(in); i++ {
		if err := compatible(in[0], in[i]); err != nil {
			return nil, &MergeError{Input: i, Err: err}
		}
		if err := compatibleShards(in[0], in[i], seen, i); err != nil {
			return nil, &MergeError{Input: i, Err: err}
		}
		if err := compatibleGroups(in[0], in[i]); err != nil {
			return nil, &MergeError{Input: i, Err: err}
		}
	}
	groups, err := mergeGroups(in)
	if err != nil {
		return nil, err
	}
	m := &merger{percentiles: in[0].Config.Percentiles}
	out := m.start(in[0])
	for _, r := range in[1:] {
		m.add(out, r)
	}
	out.Intervals = m.intervals(in)
	out.Context, out.Activity, out.Worker, out.Fleet = nil, nil, nil, nil
	if shards {
		out.Fleet = fleetOf(in)
		m.wholeRun(out)
	}
	out.Warnings = mergedWarnings(out)
	out.Groups = groups
	if err := m.finish(out); err != nil {
		return nil, err
	}
	if err := out.validate(); err != nil {
		return nil, fmt.Errorf("the merged result would be invalid: %w", err)
	}
	return out, nil
}

// MergeError says why an input cannot be merged with the first.
type MergeError struct {
	Input int // index of the input, from 0
	Err   error
}

func (e *MergeError) Error() string {
	return fmt.Sprintf("input %d cannot be merged with input 1: %v", e.Input+1, e.Err)
}

func (e *MergeError) Unwrap() error { return e.Err }

// compatible explains why b cannot be merged with a, or returns nil.
func compatible(a, b *Result) error {
	if len(a.Scripts) != len(b.Scripts) {
		return fmt.Errorf("different scripts: %d against %d", len(b.Scripts), len(a.Scripts))
	}
	for i := range a.Scripts {
		sa, sb := &a.Scripts[i], &b.Scripts[i]
		switch {
		case sa.Name != sb.Name:
			return fmt.Errorf("different scripts: script %d is %q, not %q", i+1, sb.Name, sa.Name)
		case sa.Weight != sb.Weight:
			return fmt.Errorf("different scripts: script %d (%s) has weight %d, not %d", i+1, sa.Name, sb.Weight, sa.Weight)
		case len(sa.Commands) != len(sb.Commands):
			return fmt.Errorf("different scripts: script %d (%s) has %d commands, not %d", i+1, sa.Name, len(sb.Commands), len(sa.Commands))
		}
		for j := range sa.Commands {
			ca, cb := &sa.Commands[j], &sb.Commands[j]
			if ca.Text != cb.Text {
				return fmt.Errorf("different scripts: command %d of script %d (%s) is %q, not %q", j+1, i+1, sa.Name, cb.Text, ca.Text)
			}
			if (ca.Stats == nil) != (cb.Stats == nil) {
				return errors.New("per-command statistics (-r) are in one result and not in the other")
			}
		}
	}
	return nil
}

// merger accumulates histograms and simple statistics, keyed by the
// Latency they will be written back to.
type merger struct {
	percentiles []float64
	acc         map[*Latency]*accum
	order       []*Latency
	err         error
}

type accum struct {
	simple stats.Simple
	hist   *stats.Hist
}

// start copies the first input into the output, deep enough that adding
// to it leaves the input alone. Intervals are merged apart (intervals).
func (m *merger) start(r *Result) *Result {
	out := *r
	out.Parts = partsOf(r)
	out.Scripts = make([]Script, len(r.Scripts))
	for i, s := range r.Scripts {
		s.Commands = slices.Clone(s.Commands)
		for j, c := range s.Commands {
			if c.Stats != nil {
				cs := *c.Stats
				cs.FailureClasses = addClasses(nil, c.Stats.FailureClasses)
				cs.Cache = addCache(nil, c.Stats.Cache)
				s.Commands[j].Stats = &cs
			}
		}
		out.Scripts[i] = s
	}
	out.Intervals = nil
	out.Cache = addCache(nil, r.Cache)
	if r.Lag != nil {
		lag := *r.Lag
		out.Lag = &lag
	}
	out.Availability = mergeAvailability(nil, r.Availability, 0)
	if r.TPCC != nil {
		t := *r.TPCC
		out.TPCC = &t
	}
	m.acc = map[*Latency]*accum{}
	m.forEachLatency(&out, r, m.take)
	return &out
}

// add merges r into out.
func (m *merger) add(out, r *Result) {
	end := out.Start.Add(seconds(out.Durations.BenchS))
	if e := r.Start.Add(seconds(r.Durations.BenchS)); e.After(end) {
		end = e
	}
	if r.Start.Before(out.Start) {
		out.Start = r.Start
	}
	out.Durations.BenchS = end.Sub(out.Start).Seconds()
	out.Durations.InitialConnS = max(out.Durations.InitialConnS, r.Durations.InitialConnS)
	out.Durations.ReconnectS += r.Durations.ReconnectS
	out.Runs += r.Runs
	out.Parts = append(out.Parts, partsOf(r)...)
	out.Versions.Gbench = joinDistinct(out.Versions.Gbench, r.Versions.Gbench)
	out.Versions.Server = joinDistinct(out.Versions.Server, r.Versions.Server)
	out.Versions.Transport = joinDistinct(out.Versions.Transport, r.Versions.Transport)
	out.Versions.TransportNote = joinDistinct(out.Versions.TransportNote, r.Versions.TransportNote)
	out.Config.Clients += r.Config.Clients
	out.Config.Threads += r.Config.Threads
	out.Config.Rate += r.Config.Rate
	out.Config.RateEnd += r.Config.RateEnd
	out.TPS += r.TPS
	out.Counters.add(&r.Counters)
	out.Cache = addCache(out.Cache, r.Cache)
	out.CPU.UserS += r.CPU.UserS
	out.CPU.SysS += r.CPU.SysS
	out.Aborted += r.Aborted
	out.Unstarted += r.Unstarted
	out.Interrupted = out.Interrupted || r.Interrupted
	out.Availability = mergeAvailability(out.Availability, r.Availability, len(out.Parts)-1)
	if r.TPCC != nil {
		if out.TPCC == nil {
			out.TPCC = &TPCC{}
		}
		out.TPCC.NOPM += r.TPCC.NOPM
		out.TPCC.TPM += r.TPCC.TPM
	}
	out.Lag = mergeSimple(out.Lag, r.Lag)
	for i := range r.Scripts {
		m.addScript(&out.Scripts[i], &r.Scripts[i])
	}
	m.forEachLatency(out, r, m.take)
}

// wholeRun makes a merge of workers describe the run they are parts of:
// tps over the benchmarking time, as one run's, and the run's own rate
// when no worker is missing.
func (m *merger) wholeRun(out *Result) {
	bench := out.Durations.BenchS
	out.TPS = rate(out.Counters.Processed, bench)
	for i := range out.Scripts {
		out.Scripts[i].TPS = rate(out.Scripts[i].Counters.Processed, bench)
		if out.TPCC != nil && path.Base(strings.ReplaceAll(out.Scripts[i].Name, "\\", "/")) == NewOrderScript {
			out.TPCC.NOPM = 60 * out.Scripts[i].TPS
		}
	}
	if out.TPCC != nil {
		out.TPCC.TPM = 60 * out.TPS
	}
	if len(out.Fleet.Missing) == 0 {
		out.Config.Rate = out.Fleet.RunRate
	}
}

// mergedWarnings are a merge's warnings: what the fleet lacks, then each
// part's own.
func mergedWarnings(out *Result) []string {
	var ws []string
	if out.Fleet != nil {
		ws = append(ws, out.Fleet.Warnings()...)
	}
	for i, p := range out.Parts {
		who := fmt.Sprintf("run %d", i+1)
		if p.Worker != nil {
			who = fmt.Sprintf("worker %d", p.Worker.Index)
		}
		for _, w := range p.Warnings {
			ws = append(ws, who+": "+w)
		}
	}
	return ws
}

// addScript merges one script's counters.
func (m *merger) addScript(out, s *Script) {
	out.TPS += s.TPS
	out.Counters.add(&s.Counters)
	for j := range s.Commands {
		if cs := s.Commands[j].Stats; cs != nil {
			o := out.Commands[j].Stats
			o.Failures += cs.Failures
			o.Retries += cs.Retries
			o.FailureClasses = addClasses(o.FailureClasses, cs.FailureClasses)
			o.Cache = addCache(o.Cache, cs.Cache)
		}
	}
}

// forEachLatency calls f for every Latency of dst but the intervals' with
// the matching one of src; dst and src have the same shape.
func (m *merger) forEachLatency(dst, src *Result, f func(dst, src *Latency)) {
	f(&dst.Latency, &src.Latency)
	for i := range src.Scripts {
		ds, ss := &dst.Scripts[i], &src.Scripts[i]
		f(&ds.Latency, &ss.Latency)
		for j := range ss.Commands {
			if ss.Commands[j].Stats != nil {
				f(&ds.Commands[j].Stats.Latency, &ss.Commands[j].Stats.Latency)
			}
		}
	}
}

// take adds src's histogram and statistics to dst's accumulator.
func (m *merger) take(dst, src *Latency) {
	if m.err != nil {
		return
	}
	h, err := src.Hist()
	if err != nil {
		m.err = err
		return
	}
	a := m.acc[dst]
	if a == nil {
		m.acc[dst] = &accum{simple: src.stats(), hist: h}
		m.order = append(m.order, dst)
		return
	}
	s := src.stats()
	a.simple.Merge(&s)
	a.hist.Merge(h)
}

// finish writes the accumulated distributions back and derives the rest.
func (m *merger) finish(out *Result) error {
	if m.err != nil {
		return m.err
	}
	for _, l := range m.order {
		a := m.acc[l]
		nl, err := newLatency(&a.simple, a.hist, m.percentiles)
		if err != nil {
			return err
		}
		*l = nl
	}
	out.CPU = newCPU(out.CPU.UserS, out.CPU.SysS, out.Counters)
	for k := range out.Intervals {
		in := &out.Intervals[k]
		in.TPS = rate(in.Counters.Processed, in.LengthS)
	}
	return nil
}

// mergeSimple returns a and b merged; nil when both are.
func mergeSimple(a, b *Simple) *Simple {
	if a == nil && b == nil {
		return nil
	}
	var s stats.Simple
	for _, x := range []*Simple{a, b} {
		if x != nil {
			xs := x.stats()
			s.Merge(&xs)
		}
	}
	return newSimple(&s)
}

func addClasses(dst, src map[string]int64) map[string]int64 {
	for k, v := range src {
		if dst == nil {
			dst = map[string]int64{}
		}
		dst[k] += v
	}
	return dst
}

// partsOf is r's runs: its parts when merged, else r itself.
func partsOf(r *Result) []Part {
	if len(r.Parts) > 0 {
		return slices.Clone(r.Parts)
	}
	return []Part{{
		Start: r.Start, BenchS: r.Durations.BenchS, Clients: r.Config.Clients,
		Processed: r.Counters.Processed, TPS: r.TPS, Gbench: r.Versions.Gbench, Server: r.Versions.Server,
		Context: r.Context, Activity: r.Activity, Warnings: r.Warnings, Worker: r.Worker,
	}}
}

// joinDistinct adds b to the comma-separated list a unless it is there.
func joinDistinct(a, b string) string {
	if b == "" || slices.Contains(strings.Split(a, ", "), b) {
		return a
	}
	if a == "" {
		return b
	}
	return a + ", " + b
}

// MergeText writes a short text summary of a merged result: what was
// merged, the counts, tps, latency and percentiles, in pgbench's words.
func MergeText(out io.Writer, r *Result) error {
	w := &writer{w: out}
	c := &r.Counters
	w.printf("merged runs: %d\n", r.Runs)
	w.printf("number of clients: %d\n", r.Config.Clients)
	w.printf("number of transactions actually processed: %d\n", c.Processed)
	w.printf("number of failed transactions: %d (%s%%)\n", c.Failed, fmtPct(pct(c.Failed, c.Total)))
	if c.Skipped > 0 {
		w.printf("number of transactions skipped: %d (%s%%)\n", c.Skipped, fmtPct(pct(c.Skipped, c.Total)))
	}
	if r.Latency.Count > 0 {
		w.printf("latency average = %.3f ms\n", r.Latency.MeanUs/1000)
		w.printf("latency stddev = %.3f ms\n", r.Latency.StddevUs/1000)
	}
	w.printf("tps = %f (sum of the runs)\n", r.TPS)
	if len(r.Latency.Percentiles) > 0 {
		parts := make([]string, len(r.Latency.Percentiles))
		for i, p := range r.Latency.Percentiles {
			parts[i] = fmt.Sprintf("%s = %.3f", percentileName(p.P), float64(p.Us)/1000)
		}
		w.printf("latency percentiles (ms): %s\n", strings.Join(parts, ", "))
	}
	for _, g := range r.Groups {
		gr := g.Result
		w.printf("group %s: %d transactions processed, %d failed, %d skipped; tps = %f", g.Name, gr.Counters.Processed, gr.Counters.Failed, gr.Counters.Skipped, gr.TPS)
		for _, p := range gr.Latency.Percentiles {
			if p.P == 99 {
				w.printf("; p99 = %.3f ms", float64(p.Us)/1000)
			}
		}
		w.printf("\n")
	}
	return w.err
}
