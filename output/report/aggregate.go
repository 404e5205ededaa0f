package report

import (
	"bufio"
	"io"
	"strconv"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
)

// AggregateLog writes one thread's --aggregate-interval log in pgbench 15's
// format, one line per interval:
//
//	interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
//	sum_lag sum_lag_2 min_lag max_lag skipped retried retries
//	serialization_failures deadlock_failures [other_sql_failures [connection_failures]]
//
// pgbench 15 always prints these 15 columns (later versions differ): the
// lag columns are zero without --rate, the failure columns zero without
// --failures-detailed. Times are in microseconds; interval_start is a Unix
// epoch second. Intervals start at the whole second of the run's start
// (see Start) and follow each other without gaps: an interval without
// transactions still gets its line.
//
// Unlike pgbench 15, which drops the interval in progress when the thread
// ends, Close writes it, so that the lines add up to the whole run.
//
// AggregateLog implements engine.TxLog: calls must come from one goroutine
// at a time, and Close must be called.
type AggregateLog struct {
	w        *bufio.Writer
	c        io.Closer
	opt      LogOptions
	interval int64 // microseconds
	start    int64 // the current interval's start, microseconds since the epoch
	agg      aggregate
	err      error
}

// aggregate is one interval's figures (pgbench's StatsData, as accumStats
// fills it).
type aggregate struct {
	cnt                     int64
	latency, lag            stats.Simple
	skipped                 int64
	retried, retries        int64
	serialization, deadlock int64
	other                   int64
	connection              int64
}

// NewAggregateLog returns a log of intervals of the given length (at least
// a microsecond), the first starting at start rounded down to a whole
// second (or, when Start is called, at the run's start). It writes to w;
// Close flushes but does not close w.
func NewAggregateLog(w io.Writer, interval time.Duration, start time.Time, o LogOptions) *AggregateLog {
	return &AggregateLog{
		w:        bufio.NewWriterSize(w, logBufferSize),
		opt:      o,
		interval: max(interval.Microseconds(), 1),
		start:    start.Unix() * 1_000_000,
	}
}

// Start makes the intervals start at the run's start, rounded down to a
// whole second, rather than at the time the log was opened: the workers
// of a run over several machines open theirs at different times, and
// start together. It implements engine.StartLog.
func (l *AggregateLog) Start(wall time.Time) { l.start = wall.Unix() * 1_000_000 }

// Transaction writes the lines of the intervals that ended before e, then
// adds e to its interval. It does not allocate.
func (l *AggregateLog) Transaction(e engine.LogEntry) error {
	if l.err != nil {
		return l.err
	}
	if l.advance(e.Wall.UnixMicro()) != nil {
		return l.err
	}
	l.agg.add(&e, l.opt.Lag)
	return nil
}

// Close writes the intervals that ended before wall and the one in
// progress, then flushes.
func (l *AggregateLog) Close(wall time.Time) error {
	now := wall.UnixMicro()
	if l.err == nil && l.advance(now) == nil && (now > l.start || l.agg.any()) {
		l.writeLine()
	}
	return finishLog(l.w, l.c, l.err)
}

// advance writes every interval that ends at or before now.
func (l *AggregateLog) advance(now int64) error {
	for l.err == nil && l.start+l.interval <= now {
		l.writeLine()
		l.agg = aggregate{}
		l.start += l.interval
	}
	return l.err
}

// writeLine writes the current interval's line.
func (l *AggregateLog) writeLine() {
	_, l.err = l.w.Write(appendAggregate(l.w.AvailableBuffer(), l.start, &l.agg, l.opt))
}

// add accumulates one transaction as pgbench's accumStats does: skipped
// transactions count only as skipped; retries count for successes and
// failures; lag is kept only under --rate.
func (a *aggregate) add(e *engine.LogEntry, lag bool) {
	if e.Status == stats.Skipped {
		a.skipped++
		return
	}
	if e.Tries > 1 {
		a.retried++
		a.retries += int64(e.Tries - 1)
	}
	switch e.Status {
	case stats.OK:
		a.cnt++
		a.latency.Add(float64(e.Latency))
		if lag {
			a.lag.Add(float64(e.Lag))
		}
	case stats.SerializationFailure:
		a.serialization++
	case stats.DeadlockFailure:
		a.deadlock++
	case stats.ConnectionFailure:
		a.connection++
	default:
		a.other++
	}
}

// any reports whether the interval saw a transaction.
func (a *aggregate) any() bool {
	return a.cnt+a.skipped+a.serialization+a.deadlock+a.other+a.connection > 0
}

// appendAggregate appends an interval's line to dst.
func appendAggregate(dst []byte, start int64, a *aggregate, o LogOptions) []byte {
	dst = strconv.AppendInt(dst, start/1_000_000, 10)
	dst = appendInts(dst, a.cnt)
	dst = appendFloats(dst, a.latency.Sum, a.latency.Sum2, a.latency.Min, a.latency.Max)
	dst = appendFloats(dst, a.lag.Sum, a.lag.Sum2, a.lag.Min, a.lag.Max)
	dst = appendInts(dst, a.skipped, a.retried, a.retries)
	var ser, dead, other, conn int64
	if o.FailuresDetailed {
		ser, dead, other, conn = a.serialization, a.deadlock, a.other, a.connection
	}
	dst = appendInts(dst, ser, dead)
	if o.OtherFailures {
		dst = appendInts(dst, other)
	}
	if o.ConnectionFailures {
		dst = appendInts(dst, conn)
	}
	return append(dst, '\n')
}

// appendInts appends each value after a space.
func appendInts(dst []byte, vs ...int64) []byte {
	for _, v := range vs {
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v, 10)
	}
	return dst
}

// appendFloats appends each value after a space, like C's "%.0f".
func appendFloats(dst []byte, vs ...float64) []byte {
	for _, v := range vs {
		dst = append(dst, ' ')
		dst = strconv.AppendFloat(dst, v, 'f', 0, 64)
	}
	return dst
}
