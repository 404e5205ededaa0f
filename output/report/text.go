// Package report writes a run's results: pgbench's text summary and
// progress lines, logs, JSON and markdown. Reporters write to an io.Writer
// and return every write error.
package report

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gbench/gbench/engine/stats"
)

// Summary is what the text summary needs to know about a run: a run's
// (RunConfigOf, RunResultOf) or a stored result's (SummaryOf).
type Summary struct {
	Config *RunConfig
	Result *RunResult
	// Scale is the scaling factor shown (from -s or pgbench_branches).
	Scale int
	// PartitionMethod and Partitions describe pgbench_accounts, shown when
	// it is partitioned.
	PartitionMethod string
	Partitions      int
	// FailuresDetailed prints failures by kind (--failures-detailed).
	FailuresDetailed bool
	// Percentiles are printed after pgbench's lines (gbench's addition).
	Percentiles []float64
	// RESPStats prints the \resp cache counters after pgbench's lines
	// (--resp-stats).
	RESPStats bool
	// Layout is the pgbench version whose summary layout Text follows:
	// 15 (also for 0) or 18 (text18.go).
	Layout int
}

// clients is the number of clients the run ran: the shard's under
// --worker, else -c.
func (s *Summary) clients() int {
	if s.Result.Clients > 0 {
		return s.Result.Clients
	}
	return s.Config.Clients
}

// writer remembers the first write error so that formatting code stays
// readable; the error is returned at the end.
type writer struct {
	w   io.Writer
	err error
}

func (w *writer) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// pct is a percentage as pgbench computes it, NaN for 0/0.
func pct(n, of int64) float64 {
	if of == 0 {
		if n == 0 {
			return math.NaN()
		}
		return math.Inf(1)
	}
	return 100.0 * float64(n) / float64(of)
}

// Text writes pgbench 15's summary, line for line, followed by gbench's
// latency percentiles and, for a TPC-C-like run (NOPM), its NOPM and TPM.
func Text(out io.Writer, s *Summary) error {
	w := &writer{w: out}
	if s.Layout == 18 {
		text18(w, s)
		return w.err
	}
	writeHeader(w, s)
	cfg, total := s.Config, s.Result.Stats.Total
	failures, totalCnt := total.Failures(), total.Total()
	w.printf("number of failed transactions: %d (%s%%)\n", failures, fmtPct(pct(failures, totalCnt)))
	writeFailures(w, "", total, s, totalCnt)
	writeOutages(w, s, total, totalCnt)
	// As pgbench: the other figures mean nothing when no transaction ran
	// to its end or was skipped (every client aborted, or all failed).
	if total.Cnt+total.Skipped <= 0 {
		return w.err
	}
	writeSkipped(w, "", total, s, totalCnt)
	writeLate(w, cfg, total)
	writeLatency(w, s, total, totalCnt)
	writeTPS(w, s, total)
	writeScripts(w, s)
	writePercentiles(w, s)
	writeNOPM(w, s)
	writeCache(w, s)
	return w.err
}

// writeLate prints the transactions over --latency-limit.
func writeLate(w *writer, cfg *RunConfig, total *stats.Txn) {
	if cfg.LatencyLimit > 0 {
		w.printf("number of transactions above the %.1f ms latency limit: %d/%d (%s%%)\n",
			float64(cfg.LatencyLimit.Microseconds())/1000.0, total.Late, total.Cnt, fmtPct(latePct(total)))
	}
}

// writeHeader prints the test parameters and the transactions processed,
// the same in pgbench 15 and 18.
func writeHeader(w *writer, s *Summary) {
	cfg, res, total := s.Config, s.Result, s.Result.Stats.Total
	scripts := cfg.Program.Scripts
	name := "multiple scripts"
	if len(scripts) == 1 {
		name = scripts[0].Name
	}
	w.printf("transaction type: %s\n", name)
	w.printf("scaling factor: %d\n", s.Scale)
	if s.PartitionMethod != "" {
		w.printf("partition method: %s\npartitions: %d\n", s.PartitionMethod, s.Partitions)
	}
	w.printf("query mode: %s\n", cfg.Program.Mode)
	w.printf("number of clients: %d\n", s.clients())
	w.printf("number of threads: %d\n", res.Threads)
	if cfg.MaxTries > 0 {
		w.printf("maximum number of tries: %d\n", cfg.MaxTries)
	}
	if cfg.Duration <= 0 {
		w.printf("number of transactions per client: %d\n", cfg.Transactions)
		w.printf("number of transactions actually processed: %d/%d\n", total.Cnt, cfg.Transactions*int64(s.clients()))
	} else {
		w.printf("duration: %d s\n", int(cfg.Duration.Seconds()))
		w.printf("number of transactions actually processed: %d\n", total.Cnt)
	}
}

// fmtPct formats like "%.3f" in pgbench, whose printf is PostgreSQL's.
func fmtPct(p float64) string { return cfloat(p, 3) }

// cfloat formats v with prec decimals as PostgreSQL's snprintf, which
// pgbench prints with, does: NaN is "NaN", infinities "Infinity" and
// "-Infinity".
func cfloat(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// writeFailures prints the failures by kind (--failures-detailed) and the
// retries (--max-tries other than 1); prefix is " - " inside a per-script
// section and of is the percentages' base.
func writeFailures(w *writer, prefix string, t *stats.Txn, s *Summary, of int64) {
	cfg := s.Config
	if s.FailuresDetailed {
		w.printf("%snumber of serialization failures: %d (%s%%)\n", prefix, t.SerializationFailures, fmtPct(pct(t.SerializationFailures, of)))
		w.printf("%snumber of deadlock failures: %d (%s%%)\n", prefix, t.DeadlockFailures, fmtPct(pct(t.DeadlockFailures, of)))
		if t.OtherFailures > 0 || cfg.Program.HasRESP || cfg.ContinueOnError {
			w.printf("%snumber of other failures: %d (%s%%)\n", prefix, t.OtherFailures, fmtPct(pct(t.OtherFailures, of)))
		}
	}
	if cfg.MaxTries != 1 {
		w.printf("%snumber of transactions retried: %d (%s%%)\n", prefix, t.Retried, fmtPct(pct(t.Retried, of)))
		w.printf("%stotal number of retries: %d\n", prefix, t.Retries)
	}
}

// writeSkipped prints the transactions skipped under --rate with
// --latency-limit.
func writeSkipped(w *writer, prefix string, t *stats.Txn, s *Summary, of int64) {
	if s.Config.Rate > 0 && s.Config.LatencyLimit > 0 {
		w.printf("%snumber of transactions skipped: %d (%s%%)\n", prefix, t.Skipped, fmtPct(pct(t.Skipped, of)))
	}
}

func latePct(t *stats.Txn) float64 {
	if t.Cnt == 0 {
		return 0
	}
	return 100.0 * float64(t.Late) / float64(t.Cnt)
}

// writeLatency prints the average (and stddev when pgbench measures each
// transaction) and the schedule lag under --rate.
func writeLatency(w *writer, s *Summary, t *stats.Txn, totalCnt int64) {
	cfg, res := s.Config, s.Result
	if cfg.Rate > 0 || cfg.Progress > 0 || cfg.LatencyLimit > 0 {
		writeSimple(w, "latency", &t.Latency)
	} else {
		avg := 0.001 * float64(res.Bench.Microseconds()) * float64(s.clients()) / float64(totalCnt)
		suffix := ""
		if t.Failures() > 0 {
			suffix = " (including failures)"
		}
		w.printf("latency average = %.3f ms%s\n", avg, suffix)
	}
	if cfg.Rate > 0 {
		w.printf("rate limit schedule lag: avg %s (max %.3f) ms\n", cfloat(0.001*t.Lag.Sum/float64(t.Cnt), 3), 0.001*t.Lag.Max)
	}
}

// writeSimple is pgbench's printSimpleStats, in milliseconds.
func writeSimple(w *writer, prefix string, s *stats.Simple) {
	if s.Count > 0 {
		w.printf("%s average = %.3f ms\n", prefix, 0.001*s.Mean())
		w.printf("%s stddev = %.3f ms\n", prefix, 0.001*s.Stddev())
	}
}

func writeTPS(w *writer, s *Summary, t *stats.Txn) {
	cfg, res := s.Config, s.Result
	tps := float64(t.Cnt) / res.Bench.Seconds()
	if cfg.Connect {
		w.printf("average connection time = %s ms\n", cfloat(0.001*float64(res.Stats.ConnTime)/float64(t.Cnt+t.Failures()), 3))
		w.printf("tps = %s (including reconnection times)\n", cfloat(tps, 6))
		return
	}
	w.printf("initial connection time = %.3f ms\n", float64(res.ConnElapsed.Microseconds())/1000.0)
	w.printf("tps = %s (without initial connection time)\n", cfloat(tps, 6))
}
