package report

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// SummaryOf rebuilds from a result (a run's, or a merge's) what Text needs
// to print pgbench's summary of it: for a run, the same text the run
// printed; for a merge of workers, the text one run with all their
// clients prints. The program it describes has the scripts' names,
// weights and commands as the result records them, enough for the
// summary and nothing else; it cannot be run. It is the report's own
// description of the run (RunConfig, RunResult): reading and rendering a
// result needs no engine type.
func SummaryOf(r *Result) (*Summary, error) {
	prog, err := programOf(r)
	if err != nil {
		return nil, err
	}
	c := &r.Config
	cfg := &RunConfig{
		Program: prog, Clients: c.Clients, Transactions: c.TransactionsPerClient,
		Duration: seconds(c.DurationS), Rate: c.Rate, LatencyLimit: millis(c.LatencyLimitMs),
		MaxTries: c.MaxTries, Connect: c.Connect, Progress: seconds(c.ProgressS), PerCommand: c.PerCommand,
		Seed: c.RandomSeed, SamplingRate: c.SamplingRate, Defines: c.Defines,
	}
	block, err := blockOf(r)
	if err != nil {
		return nil, err
	}
	res := &RunResult{
		Stats: block, Threads: c.Threads, Clients: c.Clients, Start: r.Start,
		Bench: seconds(r.Durations.BenchS), ConnElapsed: seconds(r.Durations.InitialConnS),
		Aborted: r.Aborted, Interrupted: r.Interrupted,
		UserCPU: seconds(r.CPU.UserS), SysCPU: seconds(r.CPU.SysS),
	}
	return &Summary{
		Config: cfg, Result: res, Scale: c.Scale, PartitionMethod: c.PartitionMethod, Partitions: c.Partitions,
		FailuresDetailed: c.FailuresDetailed, Percentiles: c.Percentiles, RESPStats: c.RESPStats,
	}, nil
}

// seconds and millis turn a result's figures back into durations, to the
// nanosecond they were written from.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }
func millis(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }

// programOf describes the result's scripts as a program.
func programOf(r *Result) (*script.Program, error) {
	mode, ok := script.ParseMode(r.Config.QueryMode)
	if !ok {
		return nil, fmt.Errorf("config.query_mode is %q, not simple, extended or prepared", r.Config.QueryMode)
	}
	p := &script.Program{Mode: mode}
	for _, s := range r.Scripts {
		sc := &script.Script{Name: s.Name, Weight: s.Weight}
		for _, c := range s.Commands {
			cmd := &script.Command{Name: c.Kind, Line: c.Line, FirstLine: firstLine(c.Text)}
			switch c.Kind {
			case "SQL":
				p.HasSQL = true
			case "resp":
				// A \resp command without arguments: enough for the
				// summary to know it (writeCache's lines per command).
				p.HasRESP = true
				cmd.RESP = &script.RESPCommand{}
			}
			sc.Commands = append(sc.Commands, cmd)
		}
		p.Scripts = append(p.Scripts, sc)
		p.TotalWeight += int64(s.Weight)
	}
	return p, nil
}

// firstLine is what the -r report shows of a command: its first line, at
// most 127 bytes (a meta-command's text is that already).
func firstLine(text string) string {
	if i := strings.IndexAny(text, "\n\r"); i >= 0 {
		text = text[:i]
	}
	if len(text) > 127 {
		text = text[:127]
	}
	return text
}

// blockOf rebuilds the statistics of a result.
func blockOf(r *Result) (*stats.Block, error) {
	b := &stats.Block{ConnTime: int64(math.Round(r.Durations.ReconnectS * 1e6)), Cache: cacheOf(r.Cache)}
	var err error
	if b.Total, err = txnOf(&r.Counters, &r.Latency, r.Lag); err != nil {
		return nil, fmt.Errorf("latency: %w", err)
	}
	for i := range r.Scripts {
		s := &r.Scripts[i]
		t, err := txnOf(&s.Counters, &s.Latency, nil)
		if err != nil {
			return nil, fmt.Errorf("scripts[%d].latency: %w", i, err)
		}
		b.Scripts = append(b.Scripts, t)
		if !r.Config.PerCommand {
			continue
		}
		cmds := make([]stats.Cmd, len(s.Commands))
		for j, c := range s.Commands {
			if c.Stats == nil {
				return nil, fmt.Errorf("scripts[%d].commands[%d] has no stats under per_command", i, j)
			}
			h, err := c.Stats.Latency.Hist()
			if err != nil {
				return nil, fmt.Errorf("scripts[%d].commands[%d].latency: %w", i, j, err)
			}
			cmds[j] = stats.Cmd{Latency: c.Stats.Latency.stats(), Hist: h, Failures: c.Stats.Failures,
				Retries: c.Stats.Retries, Classes: c.Stats.FailureClasses, Cache: cacheOf(c.Stats.Cache)}
		}
		b.Commands = append(b.Commands, cmds)
	}
	return b, nil
}

// cacheOf rebuilds cache counters; zero for none.
func cacheOf(c *Cache) stats.Cache {
	if c == nil {
		return stats.Cache{}
	}
	return stats.Cache{Hits: c.Hits, Misses: c.Misses, FieldHits: c.FieldHits, FieldMisses: c.FieldMisses,
		BytesSent: c.BytesSent, BytesRecv: c.BytesReceived, Moved: c.Moved, Asked: c.Asked}
}

// txnOf rebuilds transaction statistics.
func txnOf(c *Counters, l *Latency, lag *Simple) (*stats.Txn, error) {
	h, err := l.Hist()
	if err != nil {
		return nil, err
	}
	t := &stats.Txn{
		Cnt: c.Processed, Skipped: c.Skipped, Retries: c.Retries, Retried: c.Retried,
		SerializationFailures: c.SerializationFailures, DeadlockFailures: c.DeadlockFailures,
		OtherFailures: c.OtherFailures, Late: c.Late, Latency: l.stats(), Hist: h,
	}
	if lag != nil {
		t.Lag = lag.stats()
	}
	return t, nil
}
