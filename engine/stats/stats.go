// Package stats keeps the measurements of a run: pgbench's counters and
// simple statistics, plus HDR histograms for percentiles.
//
// Each engine thread owns one Block and records into it without locks; at
// each progress tick the thread hands over its interval figures, and at the
// end the engine merges the threads' blocks. Nothing here is safe for
// concurrent use: ownership moves, data is never shared.
package stats

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds, in microseconds: 1 us to 1 hour, 3 significant digits.
const (
	histLowest  = 1
	histHighest = 3_600_000_000
	histDigits  = 3
)

// Simple is pgbench's SimpleStats: count, min, max, sum and sum of squares.
type Simple struct {
	Count     int64
	Min, Max  float64
	Sum, Sum2 float64
}

// Add accumulates one value.
func (s *Simple) Add(v float64) {
	if s.Count == 0 || v < s.Min {
		s.Min = v
	}
	if s.Count == 0 || v > s.Max {
		s.Max = v
	}
	s.Count++
	s.Sum += v
	s.Sum2 += v * v
}

// Merge adds o's values into s.
func (s *Simple) Merge(o *Simple) {
	if o.Count == 0 {
		return
	}
	if s.Count == 0 || o.Min < s.Min {
		s.Min = o.Min
	}
	if s.Count == 0 || o.Max > s.Max {
		s.Max = o.Max
	}
	s.Count += o.Count
	s.Sum += o.Sum
	s.Sum2 += o.Sum2
}

// Mean returns the average, 0 when empty.
func (s *Simple) Mean() float64 {
	if s.Count == 0 {
		return 0
	}
	return s.Sum / float64(s.Count)
}

// Stddev returns the population standard deviation as pgbench computes it.
func (s *Simple) Stddev() float64 {
	if s.Count == 0 {
		return 0
	}
	m := s.Mean()
	// The difference is never negative but by rounding, when the values are
	// (nearly) all equal: the square root of it would be NaN, which no
	// summary can print and no JSON can hold.
	return math.Sqrt(max(s.Sum2/float64(s.Count)-m*m, 0))
}

// Hist is an HDR histogram of latencies in microseconds.
type Hist struct {
	h *hdr.Histogram
}

// NewHist returns an empty histogram.
func NewHist() *Hist { return &Hist{h: hdr.New(histLowest, histHighest, histDigits)} }

// Record adds one latency in microseconds; values beyond an hour count as
// an hour. It does not allocate.
func (h *Hist) Record(us int64) {
	if us < 0 {
		us = 0
	}
	if us > histHighest {
		us = histHighest
	}
	_ = h.h.RecordValue(us)
}

// Merge adds o's counts into h.
func (h *Hist) Merge(o *Hist) { h.h.Merge(o.h) }

// Reset empties the histogram, keeping its memory.
func (h *Hist) Reset() { h.h.Reset() }

// Count returns the number of recorded values.
func (h *Hist) Count() int64 { return h.h.TotalCount() }

// Quantile returns the value at quantile q in [0, 100], in microseconds.
func (h *Hist) Quantile(q float64) int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.ValueAtPercentile(q)
}

// Max returns the largest recorded value (within HDR precision).
func (h *Hist) Max() int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.Max()
}

// Raw returns the underlying histogram, for encoding and logs.
func (h *Hist) Raw() *hdr.Histogram { return h.h }

// FromRaw wraps a decoded histogram.
func FromRaw(r *hdr.Histogram) *Hist { return &Hist{h: r} }

// Txn holds transaction counters and latencies, as pgbench's StatsData
// plus a latency histogram. Latencies are in microseconds.
type Txn struct {
	Cnt                   int64 // successful transactions
	Skipped               int64 // skipped under --rate and --latency-limit
	Retries               int64 // retries in all transactions
	Retried               int64 // transactions retried at least once
	SerializationFailures int64
	DeadlockFailures      int64
	OtherFailures         int64 // \resp error replies, and SQL errors under --continue-on-error
	// ConnectionFailures are transactions whose connection was lost,
	// refused or timed out under --reconnect.
	ConnectionFailures int64
	Late               int64 // successful but over --latency-limit
	Latency            Simple
	Lag                Simple
	Hist               *Hist
}

// NewTxn returns empty transaction statistics.
func NewTxn() *Txn { return &Txn{Hist: NewHist()} }

// Failures returns the number of failed transactions.
func (t *Txn) Failures() int64 {
	return t.SerializationFailures + t.DeadlockFailures + t.OtherFailures + t.ConnectionFailures
}

// Total returns all transactions: processed, skipped and failed.
func (t *Txn) Total() int64 { return t.Cnt + t.Skipped + t.Failures() }

// Merge adds o into t.
func (t *Txn) Merge(o *Txn) {
	t.Cnt += o.Cnt
	t.Skipped += o.Skipped
	t.Retries += o.Retries
	t.Retried += o.Retried
	t.SerializationFailures += o.SerializationFailures
	t.DeadlockFailures += o.DeadlockFailures
	t.OtherFailures += o.OtherFailures
	t.ConnectionFailures += o.ConnectionFailures
	t.Late += o.Late
	t.Latency.Merge(&o.Latency)
	t.Lag.Merge(&o.Lag)
	t.Hist.Merge(o.Hist)
}

// Reset empties t, keeping its histogram's memory.
func (t *Txn) Reset() {
	h := t.Hist
	h.Reset()
	*t = Txn{Hist: h}
}

// Status is how a transaction ended.
type Status uint8

// Transaction outcomes.
const (
	OK Status = iota
	Skipped
	SerializationFailure
	DeadlockFailure
	OtherFailure
	// ConnectionFailure: the transaction's connection was lost, refused or
	// timed out (--reconnect).
	ConnectionFailure
)

// Record accumulates one transaction: its outcome, latency and lag in
// microseconds, and how many tries it took (pgbench's accumStats).
func (t *Txn) Record(st Status, latency, lag float64, tries int) {
	if st == Skipped {
		t.Skipped++
		return
	}
	if tries > 1 {
		t.Retries += int64(tries - 1)
		t.Retried++
	}
	switch st {
	case OK:
		t.Cnt++
		t.Latency.Add(latency)
		t.Lag.Add(lag)
		t.Hist.Record(int64(latency))
	case SerializationFailure:
		t.SerializationFailures++
	case DeadlockFailure:
		t.DeadlockFailures++
	case ConnectionFailure:
		t.ConnectionFailures++
	default:
		t.OtherFailures++
	}
}

// Cmd holds one script command's statistics (pgbench's -r).
type Cmd struct {
	Latency  Simple
	Hist     *Hist
	Failures int64
	Retries  int64
	// Classes counts failures by error class (SQLSTATE, or the RESP error
	// prefix such as WRONGTYPE).
	Classes map[string]int64
	// Cache counts the command's \resp hits, misses and bytes.
	Cache Cache
}

// Merge adds o into c.
func (c *Cmd) Merge(o *Cmd) {
	c.Latency.Merge(&o.Latency)
	c.Hist.Merge(o.Hist)
	c.Failures += o.Failures
	c.Retries += o.Retries
	c.Cache.Add(&o.Cache)
	for k, v := range o.Classes {
		if c.Classes == nil {
			c.Classes = map[string]int64{}
		}
		c.Classes[k] += v
	}
}

// Block is everything one thread measures.
type Block struct {
	Total    *Txn
	Scripts  []*Txn
	Commands [][]Cmd // per script, per command; nil unless per-command stats are on
	// ConnTime is the time spent connecting and disconnecting under -C, in
	// microseconds.
	ConnTime int64
	// Reconnects counts connections opened again after a lost one
	// (--reconnect); ReconnectFailures the attempts that failed.
	Reconnects, ReconnectFailures int64
	// Cache counts the \resp hits, misses and bytes of all commands.
	Cache Cache
}

// NewBlock returns an empty block for scripts with the given command
// counts; perCommand enables per-command statistics.
func NewBlock(commands []int, perCommand bool) *Block {
	b := &Block{Total: NewTxn()}
	for _, n := range commands {
		b.Scripts = append(b.Scripts, NewTxn())
		if perCommand {
			cs := make([]Cmd, n)
			for i := range cs {
				cs[i].Hist = NewHist()
			}
			b.Commands = append(b.Commands, cs)
		}
	}
	return b
}

// Merge adds o into b; both must come from NewBlock with the same shape.
func (b *Block) Merge(o *Block) {
	b.Total.Merge(o.Total)
	for i := range o.Scripts {
		b.Scripts[i].Merge(o.Scripts[i])
	}
	for i := range o.Commands {
		for j := range o.Commands[i] {
			b.Commands[i][j].Merge(&o.Commands[i][j])
		}
	}
	b.ConnTime += o.ConnTime
	b.Reconnects += o.Reconnects
	b.ReconnectFailures += o.ReconnectFailures
	b.Cache.Add(&o.Cache)
}

// Reset empties b, keeping its histograms' memory.
func (b *Block) Reset() {
	b.Total.Reset()
	for _, s := range b.Scripts {
		s.Reset()
	}
	for i := range b.Commands {
		for j := range b.Commands[i] {
			b.Commands[i][j].Reset()
		}
	}
	b.ConnTime = 0
	b.Reconnects, b.ReconnectFailures = 0, 0
	b.Cache = Cache{}
}

// Reset empties c, keeping its histogram's and classes' memory.
func (c *Cmd) Reset() {
	c.Latency = Simple{}
	c.Hist.Reset()
	c.Failures, c.Retries = 0, 0
	c.Cache = Cache{}
	clear(c.Classes)
}
