package series

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/run/runenv"
)

// Schema identifies the layout of Result; Read refuses others.
const Schema = "gbench-series/1"

// Kinds of series.
const (
	KindCurve = "curve"
	KindSLO   = "slo"
	KindAB    = "ab"
)

// Result is what gbench curve, gbench slo and gbench ab write: the plan,
// the context, the warm-up and every run in the order it ran, and the
// analysis of its kind. docs/json.md describes every field. Field names
// carry their unit: _us microseconds, _s seconds, _tps transactions per
// second.
type Result struct {
	Schema string `json:"schema"`
	// Kind is "curve", "slo" or "ab"; the matching analysis is set.
	Kind string `json:"kind"`
	// Partial is set while the series runs and when it stopped early.
	Partial     bool      `json:"partial"`
	Interrupted bool      `json:"interrupted"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Plan        Plan      `json:"plan"`
	// Context is who measured on what, against which servers.
	Context *runenv.Context `json:"context"`
	// Warmup runs are not results.
	Warmup []Run `json:"warmup"`
	// Runs are every measured run, in the order they ran.
	Runs  []Run  `json:"runs"`
	Curve *Curve `json:"curve,omitempty"`
	SLO   *SLO   `json:"slo,omitempty"`
	AB    *AB    `json:"ab,omitempty"`
	// Thresholds are gbench curve --threshold's verdicts, per point;
	// absent without it.
	Thresholds []PointGates `json:"thresholds,omitempty"`
}

// Plan is what the series was asked to run.
type Plan struct {
	// Commands are the gbench command lines measured, by variant ("" for
	// the only one; "A" and "B" in an A/B series), passwords hidden.
	Commands map[string][]string `json:"commands"`
	// Loads are the points of a curve or the two sides of an A/B series,
	// in plan order; an SLO search chooses its rates as it goes.
	Loads     []Load  `json:"loads"`
	Repeats   int     `json:"repeats"`
	DurationS float64 `json:"duration_s"`
	WarmupS   float64 `json:"warmup_s"`
	// Seed fixes the order of the runs and their random seeds.
	Seed uint64 `json:"seed"`
}

// Load is what one run is asked to do.
type Load struct {
	// Clients is -c.
	Clients int `json:"clients"`
	// Rate is the target rate (--rate) of an open-loop run; 0 for a closed
	// loop.
	Rate float64 `json:"rate_tps,omitempty"`
	// Variant is the side of an A/B series ("A" or "B"); empty otherwise.
	Variant string `json:"variant,omitempty"`
}

// Open reports whether l is an open-loop load.
func (l Load) Open() bool { return l.Rate > 0 }

// String names l for progress lines: "c=16", "rate=400 c=4", "A c=8".
func (l Load) String() string {
	s := fmt.Sprintf("c=%d", l.Clients)
	if l.Open() {
		s = fmt.Sprintf("rate=%g %s", l.Rate, s)
	}
	if l.Variant != "" {
		s = l.Variant + " " + s
	}
	return s
}

// Run is one measured run.
type Run struct {
	// Order is the run's position in the series, from 0.
	Order int `json:"order"`
	Load
	// Repeat numbers the runs of one load in the order they ran, from 1;
	// 0 for a warm-up.
	Repeat int       `json:"repeat"`
	Seed   uint64    `json:"random_seed"`
	Start  time.Time `json:"start"`
	// BenchS is the measured time, ConnectS the time spent connecting
	// before it.
	BenchS   float64 `json:"bench_s"`
	ConnectS float64 `json:"connect_s"`
	// TPS is successful transactions per second of BenchS: in an open
	// loop, the rate achieved.
	TPS float64 `json:"tps"`
	// Processed counts successful transactions, Failed failed ones,
	// Skipped the --rate slots skipped under --latency-limit, Late those
	// over the limit.
	Processed int64 `json:"processed"`
	Failed    int64 `json:"failed"`
	Skipped   int64 `json:"skipped"`
	Late      int64 `json:"late"`
	// ConnectionFailures, Reconnects, Outages and UnavailableS are what
	// --reconnect saw: failed transactions of lost connections, the
	// reconnections, and the windows of unavailability, with their total
	// length (docs/faults.md).
	ConnectionFailures int64   `json:"connection_failures,omitempty"`
	Reconnects         int64   `json:"reconnects,omitempty"`
	Outages            int     `json:"outages,omitempty"`
	UnavailableS       float64 `json:"unavailable_s,omitempty"`
	// Latency is the latency of the successful transactions; under --rate
	// it runs from the scheduled start.
	Latency Latency `json:"latency"`
	// Lag is the schedule lag of an open-loop run.
	Lag *Lag `json:"lag,omitempty"`
	// Activity is what the servers did during the run; Warnings what of it
	// could have disturbed the measurement.
	Activity *runenv.Activity `json:"activity,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	// UserS and SysS are gbench's own CPU time.
	UserS   float64 `json:"user_s"`
	SysS    float64 `json:"sys_s"`
	Aborted int     `json:"aborted_clients"`
	// Interrupted: Ctrl-C cut the run short; it is not a result.
	Interrupted bool `json:"interrupted,omitempty"`
	// Error says why the run failed (aborted clients, no transaction
	// completed, could not start); empty when it did not.
	Error string `json:"error,omitempty"`
}

// Valid reports whether r counts as a result.
func (r *Run) Valid() bool { return r.Error == "" && !r.Interrupted }

// FailureRatio is the share of scheduled transactions that did not
// succeed: failed and skipped ones over all of them.
func (r *Run) FailureRatio() float64 {
	n := r.Processed + r.Failed + r.Skipped
	if n == 0 {
		return 0
	}
	return float64(r.Failed+r.Skipped) / float64(n)
}

// Latency is a run's latency, in microseconds, from its HDR histogram (3
// significant digits); HDR is that histogram, encoded as in --json.
type Latency struct {
	MeanUs float64 `json:"mean_us"`
	P50Us  int64   `json:"p50_us"`
	P90Us  int64   `json:"p90_us"`
	P95Us  int64   `json:"p95_us"`
	P99Us  int64   `json:"p99_us"`
	P999Us int64   `json:"p99_9_us"`
	MaxUs  int64   `json:"max_us"`
	HDR    string  `json:"hdr"`
}

// newLatency summarises a histogram.
func newLatency(t *stats.Txn) Latency {
	h := t.Hist
	l := Latency{
		MeanUs: t.Latency.Mean(), P50Us: h.Quantile(50), P90Us: h.Quantile(90), P95Us: h.Quantile(95),
		P99Us: h.Quantile(99), P999Us: h.Quantile(99.9), MaxUs: h.Max(),
	}
	if enc, err := h.Raw().Encode(hdr.V2CompressedEncodingCookieBase); err == nil {
		l.HDR = string(enc)
	}
	return l
}

// Percentile returns the p-th percentile (0 < p <= 100) in microseconds,
// from the stored figures when p is one of them, else from the histogram.
func (l *Latency) Percentile(p float64) (int64, error) {
	switch p {
	case 50:
		return l.P50Us, nil
	case 90:
		return l.P90Us, nil
	case 95:
		return l.P95Us, nil
	case 99:
		return l.P99Us, nil
	case 99.9:
		return l.P999Us, nil
	case 100:
		return l.MaxUs, nil
	}
	raw, err := hdr.Decode([]byte(l.HDR))
	if err != nil {
		return 0, fmt.Errorf("decoding a histogram: %w", err)
	}
	return stats.FromRaw(raw).Quantile(p), nil
}

// Lag is the schedule lag of an open-loop run, in microseconds.
type Lag struct {
	MeanUs float64 `json:"mean_us"`
	MaxUs  float64 `json:"max_us"`
}

// Write writes r as indented JSON, ending with a newline.
func (r *Result) Write(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read reads a Result and checks its schema and kind.
func Read(rd io.Reader) (*Result, error) {
	var r Result
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("not a gbench series result: %w", err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("not a gbench series result: schema is %q, expected %q", r.Schema, Schema)
	}
	ok := (r.Kind == KindCurve && r.Curve != nil) || (r.Kind == KindSLO && r.SLO != nil) || (r.Kind == KindAB && r.AB != nil)
	if !ok {
		return nil, fmt.Errorf("not a gbench series result: kind %q without its analysis", r.Kind)
	}
	return &r, nil
}
