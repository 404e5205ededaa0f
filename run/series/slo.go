package series

import (
	"context"
	"fmt"
	"math"
	"strconv"
)

// Outcomes of an SLO search.
const (
	// OutcomeFound: Rate is the highest rate found that meets the
	// objective, confirmed by repeats; a rate above it failed.
	OutcomeFound = "found"
	// OutcomeEverywhere: the objective held, confirmed, at the top of the
	// range; the ceiling lies above it.
	OutcomeEverywhere = "met-everywhere"
	// OutcomeNowhere: the objective failed, confirmed, at the bottom of
	// the range; Rate is 0.
	OutcomeNowhere = "met-nowhere"
	// OutcomeInterrupted: Ctrl-C or failed runs stopped the search; Rate
	// is the best confirmed so far, or 0.
	OutcomeInterrupted = "interrupted"
)

// Search defaults.
const (
	DefaultResolution = 0.05
	DefaultMaxRuns    = 30
	// lowFraction of the capacity is the bottom of the default range.
	lowFraction = 0.1
)

// SLO is the record of an SLO search: the objective, the range searched,
// every probe and the answer.
type SLO struct {
	Objective Objective `json:"objective"`
	Clients   int       `json:"clients"`
	// CapacityTPS is the closed-loop throughput of the capacity probe
	// that set the top of the range; absent when --max-rate set it.
	CapacityTPS float64 `json:"capacity_tps,omitempty"`
	// LowTPS and HighTPS are the range searched.
	LowTPS  float64 `json:"low_tps"`
	HighTPS float64 `json:"high_tps"`
	// Resolution is the relative width at which bisection stops.
	Resolution float64 `json:"resolution"`
	// Repeats confirm the answer: the median over them must meet the
	// objective.
	Repeats int    `json:"repeats"`
	Outcome string `json:"outcome"`
	// RateTPS is the answer: the highest confirmed rate meeting the
	// objective; 0 when there is none.
	RateTPS float64 `json:"rate_tps"`
	// FailingTPS is the lowest rate seen failing the objective above the
	// answer; 0 when none was.
	FailingTPS float64 `json:"failing_tps,omitempty"`
	// Probes are every measurement in order, the evidence.
	Probes []Probe `json:"probes"`
	// Note explains the outcome in words.
	Note string `json:"note"`
	// FailBelowTPS is gbench slo --fail-below's rate (0: fail only when
	// the objective is met nowhere); ExitStatus is 3 when the search
	// failed it. Both absent without the option.
	FailBelowTPS *float64 `json:"fail_below_tps,omitempty"`
	ExitStatus   int      `json:"exit_status,omitempty"`
}

// Probe is one measurement of the search.
type Probe struct {
	// Run indexes Result.Runs.
	Run int `json:"run"`
	// Stage is "capacity" (closed loop, sets the range), "search" (one run
	// at a rate) or "confirm" (a repeat at a candidate answer).
	Stage   string  `json:"stage"`
	RateTPS float64 `json:"rate_tps"`
	// ValueUs is the objective's percentile; FailureRatio the share of
	// failed and skipped transactions.
	ValueUs      float64 `json:"value_us"`
	FailureRatio float64 `json:"failure_ratio"`
	Meets        bool    `json:"meets"`
}

// Searcher searches the highest rate meeting an objective. Measure runs
// one open-loop run (rate > 0) or the closed-loop capacity probe (rate 0)
// and records it in the result; the search reads its figures.
type Searcher struct {
	Objective Objective
	Clients   int
	// Low and High bound the range; High 0 measures the capacity first
	// and uses it; Low 0 is 10% of High (lower rates give too few
	// transactions in a run for a tail percentile).
	Low, High float64
	// Resolution: bisection stops when (high-low)/high is below it.
	Resolution float64
	// Repeats of the candidate answer (at least 1).
	Repeats int
	// MaxRuns bounds the measurements, the capacity probe included.
	MaxRuns int
	Measure func(ctx context.Context, rate float64, stage string) Run
}

// search is the state of one Search.
type search struct {
	*Searcher
	ctx    context.Context
	slo    *SLO
	runs   int
	failed bool // a run failed: stop
	passed []float64
	// confirmed holds the rates whose repeats met the objective.
	confirmed map[float64]bool
}

// Search runs the search and returns its record. The method:
//
//  1. the top of the range is --max-rate, or the throughput of one
//     closed-loop run with the same clients (no open loop goes faster);
//  2. the top is probed: when it meets the objective and its repeats
//     confirm it, the objective holds everywhere in the range;
//  3. the bottom is probed: when it fails and its repeats confirm that,
//     the objective holds nowhere;
//  4. otherwise bisection between the highest passing and the lowest
//     failing rate, one run per probe, until the gap is below the
//     resolution;
//  5. the highest passing rate is repeated; when the median of its
//     repeats fails, it becomes the failing end and the search resumes
//     below it, from the next passing rate down.
func (s *Searcher) Search(ctx context.Context) *SLO {
	st := &search{Searcher: s, ctx: ctx, confirmed: map[float64]bool{}, slo: &SLO{
		Objective: s.Objective, Clients: s.Clients, Resolution: s.Resolution, Repeats: s.Repeats, Probes: []Probe{},
	}}
	st.run()
	return st.slo
}

func (st *search) run() {
	if !st.bounds() {
		st.stop()
		return
	}
	lo, hi := st.slo.LowTPS, st.slo.HighTPS
	top, ok := st.probe(hi, "search")
	if !ok {
		st.stop()
		return
	}
	if top {
		if pass, ok := st.confirm(hi); !ok {
			st.stop()
			return
		} else if pass {
			st.finish(OutcomeEverywhere, hi, 0)
			return
		}
	}
	bottom, ok := st.probe(lo, "search")
	if !ok {
		st.stop()
		return
	}
	if !bottom {
		if pass, ok := st.confirm(lo); !ok {
			st.stop()
			return
		} else if !pass {
			st.finish(OutcomeNowhere, 0, lo)
			return
		}
	}
	st.bisect(lo, hi)
}

// bounds sets the range, probing the capacity when needed.
func (st *search) bounds() bool {
	hi := st.High
	if hi <= 0 {
		run := st.measure(0, "capacity")
		if run == nil {
			return false
		}
		st.slo.CapacityTPS = run.TPS
		hi = round3(run.TPS)
	}
	lo := st.Low
	if lo <= 0 {
		lo = round3(max(hi*lowFraction, 1))
	}
	st.slo.LowTPS, st.slo.HighTPS = lo, hi
	if lo >= hi {
		st.slo.Note = fmt.Sprintf("the range is empty: the bottom (%g tps) is not below the top (%g tps)", lo, hi)
		return false
	}
	return true
}

// bisect narrows [lo, hi], lo passing and hi failing, then confirms lo.
func (st *search) bisect(lo, hi float64) {
	for {
		for (hi-lo)/hi > st.Resolution && st.runs < st.MaxRuns {
			mid := round3((lo + hi) / 2)
			if mid <= lo || mid >= hi {
				break
			}
			pass, ok := st.probe(mid, "search")
			if !ok {
				st.stop()
				return
			}
			if pass {
				lo = mid
			} else {
				hi = mid
			}
		}
		pass, ok := st.confirm(lo)
		switch {
		case !ok:
			st.stop()
			return
		case pass:
			st.finish(OutcomeFound, lo, hi)
			return
		}
		hi = lo
		lo = st.below(lo)
		if lo == 0 {
			st.finish(OutcomeNowhere, 0, hi)
			return
		}
	}
}

// below is the highest passing rate under r; 0 when there is none.
func (st *search) below(r float64) float64 {
	best := 0.0
	for _, p := range st.passed {
		if p < r && p > best {
			best = p
		}
	}
	return best
}

// probe measures rate once and says whether it met the objective; ok is
// false when the search must stop.
func (st *search) probe(rate float64, stage string) (pass, ok bool) {
	run := st.measure(rate, stage)
	if run == nil {
		return false, false
	}
	p := st.slo.Probes[len(st.slo.Probes)-1]
	if p.Meets {
		st.passed = append(st.passed, rate)
	}
	return p.Meets, true
}

// confirm repeats rate and says whether the median of the repeats meets
// the objective.
func (st *search) confirm(rate float64) (pass, ok bool) {
	if st.confirmed[rate] {
		return true, true
	}
	var values, failures []float64
	for range max(st.Repeats, 1) {
		run := st.measure(rate, "confirm")
		if run == nil {
			return false, false
		}
		p := st.slo.Probes[len(st.slo.Probes)-1]
		values, failures = append(values, p.ValueUs), append(failures, p.FailureRatio)
	}
	pass = st.Objective.Meets(Median(values), Median(failures))
	st.passed = removeRate(st.passed, rate)
	if pass {
		st.passed = append(st.passed, rate)
		st.confirmed[rate] = true
	}
	return pass, true
}

// measure runs one measurement and records it as a probe; nil when the
// search must stop (interrupted, a failed run, the run budget spent).
func (st *search) measure(rate float64, stage string) *Run {
	if st.ctx.Err() != nil || st.runs >= st.MaxRuns {
		return nil
	}
	st.runs++
	run := st.Measure(st.ctx, rate, stage)
	if !run.Valid() {
		st.failed = true
		return nil
	}
	p := Probe{Run: run.Order, Stage: stage, RateTPS: rate, FailureRatio: run.FailureRatio()}
	if stage != "capacity" {
		v, err := run.Latency.Percentile(st.Objective.Percentile)
		if err != nil {
			st.failed = true
			return nil
		}
		p.ValueUs = float64(v)
		p.Meets = st.Objective.Meets(p.ValueUs, p.FailureRatio)
	}
	st.slo.Probes = append(st.slo.Probes, p)
	return &run
}

// stop ends an unfinished search with the best confirmed answer so far.
func (st *search) stop() {
	if st.slo.Outcome != "" {
		return
	}
	st.slo.Outcome = OutcomeInterrupted
	switch {
	case st.slo.Note != "":
	case st.ctx.Err() != nil:
		st.slo.Note = "the search was interrupted before it could confirm an answer"
	case st.failed:
		st.slo.Note = "a run failed (see the runs' errors), so the search stopped"
	default:
		st.slo.Note = fmt.Sprintf("the search used its %d runs before it could confirm an answer: raise --max-runs or --resolution", st.MaxRuns)
	}
}

// finish records the outcome and explains it.
func (st *search) finish(outcome string, rate, failing float64) {
	s := st.slo
	s.Outcome, s.RateTPS, s.FailingTPS = outcome, rate, failing
	obj := s.Objective.Text
	switch outcome {
	case OutcomeFound:
		s.Note = fmt.Sprintf("%s holds up to %g tps (confirmed by %d repeats) and fails at %g tps", obj, rate, st.Repeats, failing)
	case OutcomeEverywhere:
		s.Note = fmt.Sprintf("%s holds at every rate tried, up to the top of the range (%g tps, confirmed by %d repeats)", obj, rate, st.Repeats)
		if s.CapacityTPS > 0 {
			s.Note += ": that is the closed-loop capacity of these clients, so the ceiling is the throughput; more clients (-c) may go further"
		} else {
			s.Note += ": the ceiling is above it; raise --max-rate"
		}
	case OutcomeNowhere:
		s.Note = fmt.Sprintf("%s fails at every rate tried, down to %g tps (confirmed by %d repeats): lower --min-rate, or the objective cannot be met with this setup", obj, failing, st.Repeats)
	}
}

// removeRate drops r from rates.
func removeRate(rates []float64, r float64) []float64 {
	out := rates[:0]
	for _, x := range rates {
		if x != r {
			out = append(out, x)
		}
	}
	return out
}

// round3 rounds a rate to three significant digits, at least 0.01.
func round3(v float64) float64 {
	if v <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-2)
	r, _ := strconv.ParseFloat(strconv.FormatFloat(math.Round(v/p)*p, 'g', 3, 64), 64)
	return max(r, 0.01)
}
