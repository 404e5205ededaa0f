package matrix

import (
	"errors"
	"fmt"
	"github.com/gbench/gbench/engine/matrix/schema"
	"io"
	"slices"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/workloads"
)

// Defaults used when the matching Config field is zero.
const (
	DefaultRepeats  = 3
	DefaultDuration = 5 * time.Second
	DefaultThreads  = 2
	// DefaultWarmup is the length of the warm-up run of each path.
	DefaultWarmup = time.Second
	// DefaultRetries is how many times a failed sample is tried again.
	DefaultRetries = 2
	// DefaultRetryWait is the pause before the first retry.
	DefaultRetryWait = time.Second
)

// Config is a matrix run: what to measure and on which servers. Run reads
// it and never changes it.
type Config struct {
	// Paths to measure, in the order reports list them. Default
	// workloads.Paths().
	Paths []workloads.Path
	// Keys per request. Default workloads.KeyCounts().
	Keys []int
	// Connections (clients, -c). Default workloads.Connections().
	Connections []int
	// Repeats of each cell. Default DefaultRepeats.
	Repeats int
	// Duration of each sample (-T). Default DefaultDuration.
	Duration time.Duration
	// Threads (-j) of each sample, at most one per connection. Default
	// DefaultThreads.
	Threads int
	// Transport drives the samples' sockets (engine.Config.Transport).
	Transport engine.Transport
	// RandomKeys reads distinct random keys from 1..items instead of the
	// fixed keys 1..N of the reference.
	RandomKeys bool
	// Seed fixes the order of the samples and the clients' random seeds.
	Seed uint64
	// Data is the dataset: what Load loads, or, without Load, what the
	// servers are expected to hold (zero fields: whatever they hold).
	Data workloads.Options
	// Load loads Data into both servers before the contract check.
	Load bool
	// Warmup is the warm-up run of each path. Default DefaultWarmup; a
	// negative value skips the warm-up.
	Warmup time.Duration
	// Retries is how many more times a failed sample is tried (a server
	// restart, a dropped connection), each failure recorded in the
	// sample's Retries. Default DefaultRetries; negative for none.
	Retries int
	// RetryWait is the pause before the first retry, doubled before each
	// next one. Default DefaultRetryWait.
	RetryWait time.Duration

	// PG reaches the run's PostgreSQL database and RESP its Redis.
	PG   *pgsql.Config
	RESP resp.Options
	// PostgresPID is the postmaster's process id when the caller knows it
	// (a sandbox); 0 makes Run look for it, which works when the server
	// runs on this machine.
	PostgresPID int
	// PostgresCgroup and RedisCgroup are cgroup v2 directories holding
	// every process of each server (a sandbox's): their CPU time is then
	// read from there, whole and to the microsecond. "" reads PostgreSQL's
	// from /proc and Redis's from INFO.
	PostgresCgroup, RedisCgroup string
	// Sandbox says that the servers are throwaway ones gbench started and
	// nothing else uses: after each sample Run waits for every new backend
	// to be reaped, rather than for gbench's to leave pg_stat_activity.
	Sandbox bool

	// Gbench is gbench's version; Command the command line, program name
	// first; Variables the environment variables that changed the plan.
	Gbench    string
	Command   []string
	Variables map[string]string

	// Progress receives one line per step and per sample. Nil discards.
	Progress io.Writer
	// Save, when set, is called with the result so far after the contract
	// check, after the warm-up and after every sample, so that a crash
	// loses at most one sample; the result is partial until the last call.
	// Run stops when Save fails. The result must not be kept past the call.
	Save func(*schema.Result) error
	// Stop, when closed, makes Run stop after the current sample (the
	// first Ctrl-C). Cancelling Run's ctx stops the current sample too.
	Stop <-chan struct{}
	// HardStop, when closed, aborts the current sample's clients at once.
	HardStop <-chan struct{}
	// Now is the wall clock. Default time.Now.
	Now func() time.Time
}

// withDefaults validates c and returns a copy with defaults filled in.
func (c Config) withDefaults() (Config, error) {
	if c.PG == nil {
		return c, errors.New("matrix: no PostgreSQL configuration")
	}
	c.Paths = orSlice(c.Paths, workloads.Paths())
	c.Keys = orSlice(c.Keys, workloads.KeyCounts())
	c.Connections = orSlice(c.Connections, workloads.Connections())
	c.Repeats = or(c.Repeats, DefaultRepeats)
	c.Duration = or(c.Duration, DefaultDuration)
	c.Threads = or(c.Threads, DefaultThreads)
	c.Warmup = or(c.Warmup, DefaultWarmup)
	c.Retries = max(or(c.Retries, DefaultRetries), 0)
	c.RetryWait = or(c.RetryWait, DefaultRetryWait)
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return c, c.check()
}

// check rejects values no run can use.
func (c *Config) check() error {
	for _, k := range c.Keys {
		if k < 1 {
			return fmt.Errorf("matrix: invalid keys per request %d: must be at least 1", k)
		}
	}
	for _, n := range c.Connections {
		if n < 1 {
			return fmt.Errorf("matrix: invalid connection count %d: must be at least 1", n)
		}
	}
	var names []string
	for _, p := range c.Paths {
		if slices.Contains(names, p.Name) {
			return fmt.Errorf("matrix: path %q is listed twice", p.Name)
		}
		names = append(names, p.Name)
	}
	switch {
	case len(c.Paths)*len(c.Keys)*len(c.Connections) > schema.MaxPlanCells:
		return fmt.Errorf("matrix: the plan has %d cells (paths × keys × connections), more than %d", len(c.Paths)*len(c.Keys)*len(c.Connections), schema.MaxPlanCells)
	case c.Repeats < 1:
		return fmt.Errorf("matrix: invalid repeat count %d: must be at least 1", c.Repeats)
	case c.Duration < 100*time.Millisecond:
		return fmt.Errorf("matrix: invalid duration %v: must be at least 100ms", c.Duration)
	case c.Threads < 1:
		return fmt.Errorf("matrix: invalid thread count %d: must be at least 1", c.Threads)
	}
	return nil
}

// maxConnections is the largest connection count of the plan.
func (c *Config) maxConnections() int { return slices.Max(c.Connections) }

// plan describes c for the result.
func (c *Config) plan() schema.Plan {
	p := schema.Plan{
		Keys: slices.Clone(c.Keys), Connections: slices.Clone(c.Connections),
		Repeats: c.Repeats, DurationS: c.Duration.Seconds(), Threads: c.Threads,
		RandomKeys: c.RandomKeys, Seed: c.Seed, Items: c.Data.Items, ValueSize: c.Data.ValueSize,
		Loaded: c.Load, WarmupS: max(c.Warmup, 0).Seconds(), Retries: c.Retries,
	}
	for _, path := range c.Paths {
		p.Paths = append(p.Paths, schema.PlanPath{Name: path.Name, Mode: path.Mode.String(), Server: serverOf(path)})
	}
	return p
}

// serverOf names the server a path reads from.
func serverOf(p workloads.Path) string {
	if p.RESP {
		return "redis"
	}
	return "postgres"
}

// or returns v, or def when v is the zero value.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// orSlice returns v, or def when v is empty.
func orSlice[T any](v, def []T) []T {
	if len(v) == 0 {
		return def
	}
	return v
}
