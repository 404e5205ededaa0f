package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
)

// DefaultLogPrefix is pgbench's log file prefix when --log-prefix is not
// given.
const DefaultLogPrefix = "pgbench_log"

// logBufferSize is the write buffer of each thread's log file.
const logBufferSize = 64 << 10

// LogOptions are the optional parts of pgbench 15's log lines. pgbench
// derives them from the run's options; LogOptionsFor does the same.
type LogOptions struct {
	// Lag adds the schedule_lag column to per-transaction lines and fills
	// the lag columns of aggregate lines (--rate).
	Lag bool
	// Retries adds the retries column to per-transaction lines (--max-tries
	// other than 1).
	Retries bool
	// FailuresDetailed spells a failure by its kind instead of "failed",
	// and fills the failure columns of aggregate lines (--failures-detailed).
	FailuresDetailed bool
	// OtherFailures adds the 16th column of aggregate lines,
	// other_sql_failures as pgbench 19 names it: SQL errors under
	// --continue-on-error, and \resp error replies, which pgbench 15's
	// columns have no place for.
	OtherFailures bool
	// ConnectionFailures adds gbench's 17th column, connection_failures
	// (--reconnect), and the 16th before it.
	ConnectionFailures bool
}

// LogOptionsFor returns the log options pgbench 15 uses for cfg.
func LogOptionsFor(cfg *RunConfig, failuresDetailed bool) LogOptions {
	return LogOptions{
		Lag:                cfg.Rate > 0,
		Retries:            cfg.MaxTries != 1,
		FailuresDetailed:   failuresDetailed,
		OtherFailures:      cfg.Program != nil && cfg.Program.HasRESP || cfg.ContinueOnError || cfg.Reconnect != nil,
		ConnectionFailures: cfg.Reconnect != nil,
	}
}

// AppendTxLine appends pgbench 15's per-transaction log line for e to dst:
//
//	client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
//
// transaction_no counts from 1 (the engine's count from 0, plus one, as
// pgbench increments before logging); time is the latency in microseconds,
// or the word "skipped", "failed", or under FailuresDetailed
// "serialization", "deadlock", "other" or (gbench's, --reconnect)
// "connection". It does not allocate when dst has room.
func AppendTxLine(dst []byte, e *engine.LogEntry, o LogOptions) []byte {
	dst = strconv.AppendInt(dst, int64(e.Client), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, e.Count+1, 10)
	dst = append(dst, ' ')
	if e.Status == stats.OK {
		dst = strconv.AppendInt(dst, e.Latency, 10)
	} else {
		dst = append(dst, statusWord(e.Status, o.FailuresDetailed)...)
	}
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(e.Script), 10)
	us := e.Wall.UnixMicro()
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, us/1_000_000, 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, us%1_000_000, 10)
	if o.Lag {
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, e.Lag, 10)
	}
	if o.Retries {
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, int64(max(e.Tries-1, 0)), 10)
	}
	return append(dst, '\n')
}

// statusWord is what a log line shows instead of the latency of a
// transaction that did not succeed (pgbench's getResultString).
func statusWord(st stats.Status, detailed bool) string {
	switch {
	case st == stats.Skipped:
		return "skipped"
	case !detailed:
		return "failed"
	case st == stats.SerializationFailure:
		return "serialization"
	case st == stats.DeadlockFailure:
		return "deadlock"
	case st == stats.ConnectionFailure:
		return "connection"
	}
	return "other"
}

// TxLog writes one thread's per-transaction log (-l). It implements
// engine.TxLog: calls must come from one goroutine at a time, and Close
// must be called to flush. After a write error every call returns it.
type TxLog struct {
	w   *bufio.Writer
	c   io.Closer
	opt LogOptions
	err error
}

// NewTxLog returns a log writing lines to w. Close flushes but does not
// close w.
func NewTxLog(w io.Writer, o LogOptions) *TxLog {
	return &TxLog{w: bufio.NewWriterSize(w, logBufferSize), opt: o}
}

// Transaction writes e's line. It does not allocate.
func (l *TxLog) Transaction(e engine.LogEntry) error {
	if l.err != nil {
		return l.err
	}
	// Format straight into the buffer's free space: no copy, no garbage.
	_, l.err = l.w.Write(AppendTxLine(l.w.AvailableBuffer(), &e, l.opt))
	return l.err
}

// Close flushes the log, and closes the file LogFiles opened.
func (l *TxLog) Close(time.Time) error {
	return finishLog(l.w, l.c, l.err)
}

// finishLog flushes w unless an earlier error err stopped the log, then
// closes c when set; it returns the first error.
func finishLog(w *bufio.Writer, c io.Closer, err error) error {
	if err == nil {
		err = w.Flush()
	}
	if c != nil {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// LogFiles opens pgbench's per-thread log files: Prefix.PID for thread 0
// and Prefix.PID.N for thread N, created or truncated. It implements
// engine.LogFactory; Open may be called for several threads in turn.
type LogFiles struct {
	// Prefix is --log-prefix; DefaultLogPrefix when empty.
	Prefix string
	// PID is the process id in the names (os.Getpid() for a real run).
	PID int
	// Options are the lines' optional columns.
	Options LogOptions
	// Aggregate is --aggregate-interval: lines then describe intervals of
	// this length instead of transactions. 0 logs every transaction.
	Aggregate time.Duration
	// Now gives the time the aggregation starts from, rounded down to a
	// whole second; time.Now when nil.
	Now func() time.Time
}

// Name returns the file name of a thread's log.
func (f *LogFiles) Name(thread int) string {
	prefix := f.Prefix
	if prefix == "" {
		prefix = DefaultLogPrefix
	}
	name := prefix + "." + strconv.Itoa(f.PID)
	if thread > 0 {
		name += "." + strconv.Itoa(thread)
	}
	return name
}

// Open creates a thread's log file, with pgbench's message on failure.
func (f *LogFiles) Open(thread int) (engine.TxLog, error) {
	name := f.Name(thread)
	file, err := os.Create(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("could not open logfile \"%s\": %w", name, err)
	}
	if f.Aggregate > 0 {
		now := time.Now
		if f.Now != nil {
			now = f.Now
		}
		l := NewAggregateLog(file, f.Aggregate, now(), f.Options)
		l.c = file
		return l, nil
	}
	l := NewTxLog(file, f.Options)
	l.c = file
	return l, nil
}
