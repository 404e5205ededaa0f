package report

import (
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// RunConfig is what the reports read of a run's configuration: the text
// summary, the -P lines, the log options and the JSON result's config.
// A run describes its engine.Config with RunConfigOf; SummaryOf builds
// one from a stored result, without the engine. The fields are
// engine.Config's, of the same names and meanings.
type RunConfig struct {
	// Program is the scripts: their names, weights and commands, the query
	// mode and whether any command is SQL or \resp.
	Program *script.Program
	// Clients is -c; Transactions -t per client, 0 when Duration (-T) is
	// set.
	Clients      int
	Transactions int64
	Duration     time.Duration
	// Rate is -R, RateEnd the end of a rate ramp (0 without).
	Rate, RateEnd float64
	LatencyLimit  time.Duration
	MaxTries      int
	Connect       bool
	// Reconnect is --reconnect's policy; nil without it.
	Reconnect       *ReconnectPolicy
	IOTimeout       time.Duration
	ContinueOnError bool
	Progress        time.Duration
	PerCommand      bool
	Seed            uint64
	// Defines are the -D variables, "name=value", in order.
	Defines      []string
	SamplingRate float64
}

// RunResult is what the reports read of what a run measured: the
// statistics and the run's times and counts. A run describes its
// engine.Result with RunResultOf; SummaryOf builds one from a stored
// result. The fields are engine.Result's, of the same names and meanings.
type RunResult struct {
	Stats            *stats.Block
	Threads, Clients int
	Start            time.Time
	Bench            time.Duration
	ConnElapsed      time.Duration
	Aborted          int
	Unstarted        int64
	Interrupted      bool
	UserCPU, SysCPU  time.Duration
	// Outages are the windows of unavailability under --reconnect; a
	// stored result's summary has none (its JSON keeps them).
	Outages []engine.Outage
}

// RunConfigOf describes a run's configuration for the reports.
func RunConfigOf(cfg *engine.Config) *RunConfig {
	c := &RunConfig{
		Program: cfg.Program, Clients: cfg.Clients, Transactions: cfg.Transactions, Duration: cfg.Duration,
		Rate: cfg.Rate, RateEnd: cfg.RateEnd, LatencyLimit: cfg.LatencyLimit, MaxTries: cfg.MaxTries,
		Connect: cfg.Connect, IOTimeout: cfg.IOTimeout, ContinueOnError: cfg.ContinueOnError,
		Progress: cfg.Progress, PerCommand: cfg.PerCommand, Seed: cfg.Seed, SamplingRate: cfg.SamplingRate,
	}
	if p := cfg.Reconnect; p.Enabled {
		c.Reconnect = &ReconnectPolicy{DelayS: p.Delay.Seconds(), MaxDelayS: p.MaxDelay.Seconds(), Max: p.Max}
	}
	for _, d := range cfg.Defines {
		c.Defines = append(c.Defines, d.Name+"="+d.Value)
	}
	return c
}

// RunResultOf describes what a run measured for the reports.
func RunResultOf(res *engine.Result) *RunResult {
	return &RunResult{
		Stats: res.Stats, Threads: res.Threads, Clients: res.Clients, Start: res.Start,
		Bench: res.Bench, ConnElapsed: res.ConnElapsed, Aborted: res.Aborted, Unstarted: res.Unstarted, Interrupted: res.Interrupted,
		UserCPU: res.UserCPU, SysCPU: res.SysCPU, Outages: res.Outages,
	}
}

// Unavailable returns the windows' total length and the longest, as
// engine.Result's does.
func (r *RunResult) Unavailable() (total, longest time.Duration) {
	for i := range r.Outages {
		d := r.Outages[i].Duration()
		total, longest = total+d, max(longest, d)
	}
	return total, longest
}
