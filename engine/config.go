package engine

import (
	"context"
	"io"
	"time"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// Config is a validated run configuration. The CLI builds it once; the
// engine never sees flags or raw strings. It must not change during a run.
type Config struct {
	Program *script.Program

	Clients int
	Threads int
	// Transactions per client (-t); 0 when Duration is set.
	Transactions int64
	// TotalTransactions, when Transactions is 0, is a number of
	// transactions the clients share (redis-benchmark's -n): client i runs
	// TotalTransactions/Clients of them, one more when i is below
	// TotalTransactions%Clients. It must be at least Clients.
	TotalTransactions int64
	// Duration of the run (-T); 0 when Transactions is set.
	Duration time.Duration
	// Rate is the target total rate in transactions per second (-R); 0 for
	// no throttling.
	Rate float64
	// RateEnd, when above 0 and unlike Rate, ramps the rate linearly from
	// Rate at the start to RateEnd at Duration (a stage's
	// rate=FROM..TO): the schedule is then a non-homogeneous Poisson
	// process whose intensity follows the ramp. It needs Rate and
	// Duration.
	RateEnd float64
	// LatencyLimit (-L); 0 for none.
	LatencyLimit time.Duration
	// MaxTries (--max-tries); 0 means unlimited.
	MaxTries int
	// Connect opens a connection per transaction (-C).
	Connect bool
	// Reconnect keeps clients running across lost connections; its zero
	// value aborts a client whose connection fails, as pgbench does.
	Reconnect Reconnect
	// IOTimeout fails a request whose reply has not come within it
	// (--io-timeout): under Reconnect as a connection failure, otherwise by
	// aborting the client. 0 waits for ever, as pgbench does.
	IOTimeout time.Duration
	// EndGrace bounds how long after the end of a -T run a client may still
	// wait for a reply before it is aborted; 0 means DefaultEndGrace, a
	// negative value no bound.
	EndGrace time.Duration
	// ContinueOnError fails the transaction on an SQL error other than a
	// serialization or deadlock failure, instead of aborting the client
	// (pgbench 19's --continue-on-error): it is rolled back, counted among
	// the other failures, and the client starts its next one.
	ContinueOnError bool
	// Progress is the -P interval; 0 for none.
	Progress time.Duration
	// PerCommand collects per-command statistics (-r).
	PerCommand bool
	// ExitOnAbort stops the run at the first aborted client.
	ExitOnAbort bool
	// VerboseErrors prints every error (--verbose-errors).
	VerboseErrors bool
	// Debug prints pgbench's --debug messages.
	Debug bool
	// Transport selects how sockets are driven; TransportAuto picks the
	// platform's fastest.
	Transport Transport

	// Seed is the --random-seed value all random sequences derive from.
	Seed uint64
	// Defines are -D variables, in order.
	Defines []Define
	// Scale is the value of :scale unless -D sets it.
	Scale int

	// SQL opens PostgreSQL connections (pgsql.Connector); nil when the
	// program has no SQL.
	SQL driver.Connector
	// RESP opens Redis-protocol connections (resp.Connector); nil when the
	// program has no \resp command.
	RESP driver.Connector

	// Stderr receives messages: client aborts, errors, --debug output,
	// debug() values.
	Stderr io.Writer
	// Stdout receives the output of \shell commands, as pgbench's; nil
	// discards it.
	Stdout io.Writer
	// Log, when set, writes per-transaction or aggregate logs.
	Log LogFactory
	// SamplingRate is the fraction of transactions logged (--sampling-rate);
	// 0 logs them all.
	SamplingRate float64
	// OnProgress receives each -P interval, in order, from one goroutine.
	// It must not keep the statistics it is given (see Progress).
	OnProgress func(Progress)
	// Tick is the interval of OnProgress calls when Progress is 0 (for
	// interval logs without -P lines); 0 for none.
	Tick time.Duration
	// HardStop, when closed, aborts every client at once, closing its
	// connections (a second Ctrl-C). Cancelling Run's context only stops
	// clients from starting new transactions.
	HardStop <-chan struct{}

	// Shard is this process's part of a run split over several processes
	// (gbench --worker); the zero value runs the whole run.
	Shard Shard
	// Start, when set, is called once the initial connections are open and
	// the logs created, and says when the benchmark clock starts: the run
	// waits until then (see StartPlan). An error ends the run before it
	// starts, as a failed connection does.
	Start func(ctx context.Context) (StartPlan, error)
}

// StartPlan is when a run's clock starts.
type StartPlan struct {
	// At is the start on this process's clock; it must carry a monotonic
	// reading (time.Now().Add(d)). When it is already past, the run starts
	// at once but keeps At as its origin: its schedule, -T deadline and
	// intervals stay those of the common start, and Result.Late says how
	// late it was.
	At time.Time
	// Wall is the wall-clock time of At on the run's common timeline (the
	// server's clock for a rendezvous through the server), used for every
	// time the run prints or logs: each such time is Wall plus the
	// monotonic time since At. The zero value means At's own wall clock.
	Wall time.Time
}

// DefaultEndGrace is how long a client may wait for a reply after the end
// of a -T run before it is aborted, so that a dead server cannot keep a run
// going (pgbench would wait for ever).
const DefaultEndGrace = 10 * time.Second

// Reconnect is the policy for lost connections (--reconnect).
type Reconnect struct {
	// Enabled: a transaction whose connection is lost, refused or timed
	// out counts as a connection failure, and the client opens its
	// connections again and goes on.
	Enabled bool
	// Delay is the wait before the second attempt; each failed attempt
	// doubles it, up to MaxDelay, and each wait is drawn uniformly between
	// half of it and all of it (jitter). The first attempt is immediate.
	Delay, MaxDelay time.Duration
	// Max is the number of consecutive failed attempts after which the
	// client aborts; 0 for no limit.
	Max int
}

// Define is one -D name=value.
type Define struct{ Name, Value string }

// DialFunc opens a network connection; connectors open their sockets with
// the one the engine gives them, so that it can take them over after the
// protocol's setup (TLS, authentication).
type DialFunc = driver.Dial

// Progress is one -P report: the interval's transactions across threads.
type Progress struct {
	// Index is the interval's boundary: it ends at the start plus Index
	// times the -P (or Tick) interval, give or take the time the threads
	// take to hand their figures over. It counts from 1; a report that came
	// late covers the boundaries it missed and carries the last of them.
	Index int
	// Elapsed is the time since the start of the benchmark.
	Elapsed time.Duration
	// Interval is the length of the interval reported.
	Interval time.Duration
	// Wall is the time of the report on the run's timeline.
	Wall time.Time
	// Txn is the interval's transactions (Block.Total).
	Txn *stats.Txn
	// Down is the number of clients without a connection at the report,
	// waiting to reconnect (--reconnect).
	Down int
	// Block is the interval's statistics, per script (when there are
	// several; one script's are in Total) and per command (-r); Total is
	// the run's so far. Both belong to the engine and are valid only
	// during the OnProgress call.
	Block, Total *stats.Block
}

// LogFactory opens a thread's transaction log (-l).
type LogFactory interface {
	Open(thread int) (TxLog, error)
}

// TxLog receives one thread's transactions. Calls come from that thread
// only; Close flushes.
type TxLog interface {
	// Transaction logs one finished or skipped transaction; wall is the
	// wall-clock time of its end.
	Transaction(e LogEntry) error
	Close(wall time.Time) error
}

// StartLog is a TxLog that wants to know when the run starts: Start is
// called once, with the start on the run's timeline, before the first
// Transaction.
type StartLog interface {
	TxLog
	Start(wall time.Time)
}

// LogEntry describes one transaction for the log.
type LogEntry struct {
	Client  int
	Count   int64 // the client's transaction number, from 0
	Script  int
	Status  stats.Status
	Latency int64 // microseconds; 0 when skipped or failed
	Lag     int64 // microseconds, under --rate
	Tries   int
	Wall    time.Time
}
