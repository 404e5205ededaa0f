package report

import (
	"fmt"
	"math"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine/stats"
)

// maxCount bounds every count in a result: far above any real run, low
// enough that merging thousands of results cannot overflow.
const maxCount = 1 << 53

// decodeHist decodes an encoded histogram and checks that it is one of
// gbench's (microseconds from 1 to an hour, 3 significant digits): merging
// another would drop the values it cannot hold.
func decodeHist(enc string) (*stats.Hist, error) {
	raw, err := hdr.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("decoding the histogram: %w", err)
	}
	want := stats.NewHist().Raw()
	if raw.LowestTrackableValue() != want.LowestTrackableValue() || raw.HighestTrackableValue() != want.HighestTrackableValue() ||
		raw.SignificantFigures() != want.SignificantFigures() {
		return nil, fmt.Errorf("the histogram tracks %d..%d with %d digits, not gbench's %d..%d with %d",
			raw.LowestTrackableValue(), raw.HighestTrackableValue(), raw.SignificantFigures(),
			want.LowestTrackableValue(), want.HighestTrackableValue(), want.SignificantFigures())
	}
	return stats.FromRaw(raw), nil
}

// validate checks what merging relies on in a result, naming the first
// field that is wrong: counts that add up, histograms that decode and
// hold as many values as their counts say, sound figures. A file edited
// by hand or cut short gives an error, never a wrong merge.
func (r *Result) validate() error {
	v := &validator{}
	v.check(r.Runs >= 1, "runs", "is %d, not at least 1", r.Runs)
	v.check(len(r.Parts) == 0 && r.Runs == 1 || len(r.Parts) == r.Runs, "parts", "lists %d runs, but runs is %d", len(r.Parts), r.Runs)
	for i, p := range r.Config.Percentiles {
		v.check(p > 0 && p <= 100, fmt.Sprintf("config.percentiles[%d]", i), "is %v, not in (0, 100]", p)
	}
	v.number("durations.bench_s", r.Durations.BenchS)
	v.number("durations.initial_conn_s", r.Durations.InitialConnS)
	v.number("durations.reconnect_s", r.Durations.ReconnectS)
	v.counters("counters", &r.Counters)
	v.latency("latency", &r.Latency, &r.Counters)
	v.simple("lag", r.Lag)
	v.cache("cache", r.Cache)
	for i := range r.Scripts {
		v.script(fmt.Sprintf("scripts[%d]", i), &r.Scripts[i])
	}
	v.worker(r.Worker, r.Runs)
	v.fleet(r.Fleet, r.Runs)
	var names []string
	for i, g := range r.Groups {
		at := fmt.Sprintf("groups[%d]", i)
		v.check(g.Name != "" && !slices.Contains(names, g.Name), at+".name", "%q is empty or repeated", g.Name)
		names = append(names, g.Name)
		v.check(g.Result != nil, at+".result", "is missing")
		if g.Result != nil && v.err == nil {
			v.check(len(g.Result.Groups) == 0, at+".result.groups", "are set: groups do not nest")
			if err := g.Result.validate(); err != nil {
				v.check(false, at+".result", "%v", err)
			}
		}
	}
	for i := range r.Intervals {
		in := &r.Intervals[i]
		at := fmt.Sprintf("intervals[%d]", i)
		v.check(in.Index >= 0 && (i == 0 || in.Index == 0 || in.Index > r.Intervals[i-1].Index), at+".index",
			"is %d, not after the previous interval's", in.Index)
		v.number(at+".length_s", in.LengthS)
		v.counters(at+".counters", &in.Counters)
		v.latency(at+".latency", &in.Latency, &in.Counters)
		v.simple(at+".lag", in.Lag)
	}
	return v.err
}

// worker checks a worker's description.
func (v *validator) worker(w *Worker, runs int) {
	if w == nil {
		return
	}
	v.check(runs == 1, "worker", "is set in a merge of %d runs", runs)
	v.check(w.Count >= 1, "worker.count", "is %d, not at least 1", w.Count)
	v.check(w.Index >= 0 && w.Index < w.Count, "worker.index", "is %d, not from 0 to count - 1 (%d)", w.Index, w.Count-1)
	v.check(w.RunThreads >= w.Count && w.RunClients >= w.RunThreads, "worker.run_threads",
		"is %d for %d workers and %d clients", w.RunThreads, w.Count, w.RunClients)
	v.number("worker.start.late_s", w.Start.LateS)
}

// fleet checks a merge's description of its workers.
func (v *validator) fleet(f *Fleet, runs int) {
	if f == nil {
		return
	}
	v.check(len(f.Merged) == runs, "fleet.merged", "lists %d workers, but runs is %d", len(f.Merged), runs)
	v.check(len(f.Merged)+len(f.Missing) == f.Workers, "fleet.missing", "and fleet.merged list %d workers, not %d", len(f.Merged)+len(f.Missing), f.Workers)
	seen := map[int]bool{}
	for _, k := range append(append([]int{}, f.Merged...), f.Missing...) {
		v.check(k >= 0 && k < f.Workers && !seen[k], "fleet.merged", "holds worker %d twice or out of 0..%d", k, f.Workers-1)
		seen[k] = true
	}
}

// validator keeps the first error.
type validator struct{ err error }

func (v *validator) check(ok bool, field, format string, args ...any) {
	if !ok && v.err == nil {
		v.err = fmt.Errorf("%s %s", field, fmt.Sprintf(format, args...))
	}
}

func (v *validator) count(field string, n int64) {
	v.check(n >= 0 && n <= maxCount, field, "is %d, not a count from 0 to 2^53", n)
}

// number checks a figure that is never negative.
func (v *validator) number(field string, x float64) {
	v.check(x >= 0 && !math.IsInf(x, 0), field, "is %v, not a number from 0", x)
}

func (v *validator) counters(field string, c *Counters) {
	for _, f := range []struct {
		name string
		n    int64
	}{
		{"total", c.Total}, {"processed", c.Processed}, {"failed", c.Failed},
		{"serialization_failures", c.SerializationFailures}, {"deadlock_failures", c.DeadlockFailures},
		{"other_failures", c.OtherFailures}, {"connection_failures", c.ConnectionFailures},
		{"retried", c.Retried}, {"retries", c.Retries},
		{"skipped", c.Skipped}, {"late", c.Late},
	} {
		v.count(field+"."+f.name, f.n)
	}
	if v.err != nil {
		return
	}
	byKind := c.SerializationFailures + c.DeadlockFailures + c.OtherFailures + c.ConnectionFailures
	v.check(c.Failed == byKind, field+".failed", "is %d, not the sum of the failures by kind (%d)", c.Failed, byKind)
	v.check(c.Total == c.Processed+c.Failed+c.Skipped, field+".total",
		"is %d, not processed + failed + skipped (%d)", c.Total, c.Processed+c.Failed+c.Skipped)
}

// simple checks pgbench's simple statistics.
func (v *validator) simple(field string, s *Simple) {
	if s == nil {
		return
	}
	v.count(field+".count", s.Count)
	for _, f := range []struct {
		name string
		x    float64
	}{{"sum_us", s.SumUs}, {"sum2_us2", s.Sum2Us2}, {"min_us", s.MinUs}, {"max_us", s.MaxUs}} {
		v.check(!math.IsInf(f.x, 0), field+"."+f.name, "is %v, too large", f.x)
	}
	v.check(s.Count == 0 || s.MinUs <= s.MaxUs, field+".min_us", "is above max_us (%v > %v)", s.MinUs, s.MaxUs)
}

// latency checks a distribution: its statistics, its histogram, which
// must hold count values, and, for transactions, that it counts the
// processed ones.
func (v *validator) latency(field string, l *Latency, c *Counters) {
	v.simple(field, &l.Simple)
	for i, p := range l.Percentiles {
		v.check(p.P > 0 && p.P <= 100, fmt.Sprintf("%s.percentiles[%d].p", field, i), "is %v, not in (0, 100]", p.P)
	}
	if v.err != nil {
		return
	}
	h, err := decodeHist(l.HDR)
	if err != nil {
		v.check(false, field+".hdr", "cannot be read: %v", err)
		return
	}
	v.check(h.Count() == l.Count, field+".hdr", "holds %d values, but count is %d", h.Count(), l.Count)
	if c != nil {
		v.check(l.Count == c.Processed, field+".count", "is %d, but %d transactions were processed", l.Count, c.Processed)
	}
}

func (v *validator) script(field string, s *Script) {
	v.check(s.Weight >= 0, field+".weight", "is %d, not from 0", s.Weight)
	v.counters(field+".counters", &s.Counters)
	v.latency(field+".latency", &s.Latency, &s.Counters)
	for j := range s.Commands {
		cs := s.Commands[j].Stats
		if cs == nil {
			continue
		}
		at := fmt.Sprintf("%s.commands[%d].stats", field, j)
		v.count(at+".failures", cs.Failures)
		v.count(at+".retries", cs.Retries)
		for k, n := range cs.FailureClasses {
			v.count(at+".failure_classes."+k, n)
		}
		v.latency(at+".latency", &cs.Latency, nil)
		v.cache(at+".cache", cs.Cache)
	}
}
