package matrix

import (
	"errors"
	"fmt"
	"github.com/gbench/gbench/result/schema"
	"io"
	"slices"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
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
	// Name is the plan's name ("read", "mixed", or the plan file), Title
	// what it measures; both go into the result.
	Name, Title string
	// Paths to measure, in the order reports list them. Default
	// ReadPaths().
	Paths []Path
	// Mixes are weighted mixes of each path's scripts; a cell runs one. Nil:
	// each path runs its first script alone.
	Mixes []Mix
	// Keys per request; each script of a sample first sets the list :keys
	// to that many keys. Default workloads.KeyCounts(), unless NoKeys.
	Keys []int
	// NoKeys is set for a plan whose scripts read no list of keys: samples
	// have no keys per request, and :keys is the number of kv keys loaded
	// (as "gbench sandbox" defines it).
	NoKeys bool
	// Connections (clients, -c). Default workloads.Connections().
	Connections []int
	// Rates are target rates (requests per second, --rate) of the samples,
	// 0 for unthrottled. Nil: unthrottled only.
	Rates []float64
	// Repeats of each cell. Default DefaultRepeats.
	Repeats int
	// Duration of each sample (-T). Default DefaultDuration, unless
	// Requests is set.
	Duration time.Duration
	// Requests, when set, is the number of requests of each sample,
	// shared by its connections, instead of a Duration.
	Requests int64
	// Interval, when set, makes each sample record a series of intervals
	// of that length (throughput, latency, the path's cache entries).
	Interval time.Duration
	// Threads (-j) of each sample, at most one per connection. Default
	// DefaultThreads.
	Threads int
	// Transport drives the samples' sockets (engine.Config.Transport).
	Transport engine.Transport
	// RandomKeys reads distinct random keys from 1..items instead of the
	// fixed keys 1..N of the reference; from 1..HotRows when HotRows is set.
	RandomKeys bool
	HotRows    int
	// Seed fixes the order of the samples and the clients' random seeds.
	Seed uint64
	// Threshold is what every cell must meet (gate's grammar, see
	// schema.ParseCellThresholds), checked on the cell's medians when the
	// run ends; "" for none. Path.Threshold adds a path's own.
	Threshold string
	// Data is the dataset: what Load loads, or, without Load, what the
	// servers are expected to hold (zero fields: whatever they hold).
	Data workloads.Options
	// Load loads Data into the plan's servers before the contract check.
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

	// PG reaches the run's PostgreSQL database and RESP its Redis, for the
	// paths that do not have their own. A plan whose paths use only one of
	// them may leave the other nil.
	PG   *pgsql.Config
	RESP *resp.Options
	// PostgresPID is the postmaster's process id when the caller knows it
	// (a sandbox); 0 makes Run look for it, which works when the server
	// runs on this machine.
	PostgresPID int
	// PostgresCgroup and RedisCgroup are cgroup v2 directories holding
	// every process of each server (a sandbox's): their CPU time is then
	// read from there, whole and to the microsecond. "" reads PostgreSQL's
	// from /proc and Redis's from INFO.
	PostgresCgroup, RedisCgroup string
	// PostgresCgroups and RedisCgroups are every cgroup directory of each
	// server (a sandbox's, v2 and v1): each sample records their memory
	// every 500 ms, block I/O, throttling and memory events.
	PostgresCgroups, RedisCgroups Cgroups
	// WaitInterval is the period of the wait-state reads of
	// pg_stat_activity during each sample; 0 for
	// runenv.DefaultWaitInterval.
	WaitInterval time.Duration
	// Sandbox says that the servers are throwaway ones gbench started and
	// nothing else uses: after each sample Run waits for every new backend
	// to be reaped, rather than for gbench's to leave pg_stat_activity.
	Sandbox bool
	// DurabilityOff asks a sandbox for fsync, synchronous_commit and
	// full_page_writes off (the plan's servers.durability, or the
	// command's --durability); the run's environment records what the
	// server actually runs with.
	DurabilityOff bool

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

// Mix is a weighted mix of each path's scripts, chosen per request as
// pgbench's -f file@weight chooses.
type Mix struct {
	Name    string
	Weights []Weight
}

// Weight is one script of a mix; a weight of 0 leaves it out.
type Weight struct {
	Script string
	Weight int
}

// withDefaults validates c and returns a copy with defaults filled in.
func (c Config) withDefaults() (Config, error) {
	c.Paths = orSlice(c.Paths, ReadPaths())
	if !c.NoKeys {
		c.Keys = orSlice(c.Keys, workloads.KeyCounts())
	} else {
		c.Keys = nil
	}
	c.Connections = orSlice(c.Connections, workloads.Connections())
	c.Repeats = or(c.Repeats, DefaultRepeats)
	if c.Requests == 0 {
		c.Duration = or(c.Duration, DefaultDuration)
	}
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
		if c.HotRows > 0 && k > c.HotRows {
			return fmt.Errorf("matrix: %d keys per request cannot be distinct among %d hot rows", k, c.HotRows)
		}
	}
	for _, n := range c.Connections {
		if n < 1 {
			return fmt.Errorf("matrix: invalid connection count %d: must be at least 1", n)
		}
		if c.Requests > 0 && c.Requests < int64(n) {
			return fmt.Errorf("matrix: %d requests per sample cannot be shared by %d connections", c.Requests, n)
		}
	}
	for _, r := range c.Rates {
		if !(r >= 0 && r <= 1e9) {
			return fmt.Errorf("matrix: invalid rate %v: must be from 0 (unthrottled) to 1e9 requests per second", r)
		}
	}
	var names []string
	for _, p := range c.Paths {
		if slices.Contains(names, p.Name) {
			return fmt.Errorf("matrix: path %q is listed twice", p.Name)
		}
		names = append(names, p.Name)
		if err := c.checkPath(&p); err != nil {
			return err
		}
	}
	pl := c.plan()
	switch cells := pl.CellCount(); {
	case cells > schema.MaxPlanCells:
		return fmt.Errorf("matrix: the plan has %d cells (paths × mixes × keys × connections × rates), more than %d", cells, schema.MaxPlanCells)
	case c.Repeats < 1:
		return fmt.Errorf("matrix: invalid repeat count %d: must be at least 1", c.Repeats)
	case c.Requests == 0 && c.Duration < 100*time.Millisecond:
		return fmt.Errorf("matrix: invalid duration %v: must be at least 100ms", c.Duration)
	case c.Requests < 0 || c.Requests > 0 && c.Duration != 0:
		return errors.New("matrix: give a duration or a number of requests per sample, not both")
	case c.Interval != 0 && c.Interval < minInterval:
		return fmt.Errorf("matrix: invalid interval %v: must be at least %v", c.Interval, minInterval)
	case c.Threads < 1:
		return fmt.Errorf("matrix: invalid thread count %d: must be at least 1", c.Threads)
	}
	return nil
}

// minInterval is the shortest interval of a series.
const minInterval = 50 * time.Millisecond

// checkPath checks that a path has the scripts its mixes name.
func (c *Config) checkPath(p *Path) error {
	if len(p.Scripts) == 0 {
		return fmt.Errorf("matrix: path %q has no script", p.Name)
	}
	for _, m := range c.Mixes {
		total := 0
		for _, w := range m.Weights {
			if w.Weight > 0 && p.script(w.Script) == nil {
				return fmt.Errorf("matrix: path %q has no script %q, which mix %q runs", p.Name, w.Script, m.Name)
			}
			total += w.Weight
		}
		if total <= 0 {
			return fmt.Errorf("matrix: mix %q gives no script a weight", m.Name)
		}
	}
	return nil
}

// script returns the path's script of that name, or nil.
func (p *Path) script(name string) *Script {
	for i := range p.Scripts {
		if p.Scripts[i].Name == name {
			return &p.Scripts[i]
		}
	}
	return nil
}

// NeedsServers reports whether some path talks to the plan's PostgreSQL
// (Config.PG) and to its RESP server (Config.RESP), rather than to its
// own or to none.
func (c *Config) NeedsServers() (pg, resp bool) {
	for i := range c.Paths {
		p := &c.Paths[i]
		pg = pg || p.PG == nil && p.needsSQL()
		resp = resp || p.RESP == nil && p.needsRESP()
	}
	return pg, resp
}

// maxConnections is the largest connection count of the plan.
func (c *Config) maxConnections() int { return slices.Max(c.Connections) }

// keyList is the plan's keys per request, or one 0 without them.
func (c *Config) keyList() []int {
	if len(c.Keys) == 0 {
		return []int{0}
	}
	return c.Keys
}

// mixList is the plan's mixes, or one nil mix (each path's first script).
func (c *Config) mixList() []*Mix {
	if len(c.Mixes) == 0 {
		return []*Mix{nil}
	}
	out := make([]*Mix, len(c.Mixes))
	for i := range c.Mixes {
		out[i] = &c.Mixes[i]
	}
	return out
}

// rateList is the plan's rates, or one 0 (unthrottled).
func (c *Config) rateList() []float64 {
	if len(c.Rates) == 0 {
		return []float64{0}
	}
	return c.Rates
}

// plan describes c for the result.
func (c *Config) plan() schema.Plan {
	p := schema.Plan{
		Name: c.Name, Title: c.Title, Rates: slices.Clone(c.Rates),
		Keys: slices.Clone(c.Keys), Connections: slices.Clone(c.Connections),
		Repeats: c.Repeats, DurationS: c.Duration.Seconds(), Requests: c.Requests, IntervalS: c.Interval.Seconds(),
		Threads: c.Threads, RandomKeys: c.RandomKeys, HotRows: c.HotRows, Seed: c.Seed,
		Items: c.Data.Items, ValueSize: c.Data.ValueSize,
		Loaded: c.Load, WarmupS: max(c.Warmup, 0).Seconds(), Retries: c.Retries,
		Threshold: c.Threshold,
	}
	if p.Keys == nil {
		p.Keys = []int{}
	}
	for _, m := range c.Mixes {
		pm := schema.PlanMix{Name: m.Name}
		for _, w := range m.Weights {
			pm.Weights = append(pm.Weights, schema.PlanWeight{Script: w.Script, Weight: w.Weight})
		}
		p.Mixes = append(p.Mixes, pm)
	}
	for i := range c.Paths {
		p.Paths = append(p.Paths, describePath(&c.Paths[i]))
	}
	return p
}

// describePath describes a path for the result.
func describePath(path *Path) schema.PlanPath {
	pp := schema.PlanPath{Name: path.Name, Mode: path.Mode.String(), Server: path.costServer(),
		Contract: string(path.Contract), Postgres: path.PGText, RESP: path.RESPText, Threshold: path.Threshold}
	if path.Mode == script.Prepared && !path.hasSQL() {
		pp.Mode = script.Simple.String() // RESP has no query modes
	}
	for _, s := range path.Scripts {
		pp.Scripts = append(pp.Scripts, schema.PlanScript{Name: s.Name, Source: s.Source, Text: s.Text})
	}
	if path.Reset != nil {
		pp.Reset = path.Reset.Text
	}
	if path.Cached != nil {
		pp.Cached = path.Cached.Text
	}
	return pp
}

// costServer is the kind of server whose cost a sample records first.
func (p *Path) costServer() string {
	switch {
	case p.Cost != "":
		return p.Cost
	case p.hasRESP():
		return "redis"
	}
	return "postgres"
}

// hasSQL and hasRESP report whether the path's scripts talk to
// PostgreSQL and to a RESP server.
func (p *Path) hasSQL() bool  { return p.talks(false) }
func (p *Path) hasRESP() bool { return p.talks(true) }

func (p *Path) talks(resp bool) bool {
	for _, s := range p.Scripts {
		if sqlOrRESP(s.Text, resp) {
			return true
		}
	}
	return false
}

// sqlOrRESP reports whether a script's text has a \resp command (resp)
// or an SQL command (!resp); text that does not parse counts as neither.
func sqlOrRESP(text string, resp bool) bool {
	sc, err := script.Parse("x", text, 1)
	if err != nil {
		return false
	}
	for _, c := range sc.Commands {
		if c.Kind == script.CmdRESP && resp || c.Kind == script.CmdSQL && !resp {
			return true
		}
	}
	return false
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

// Redact hides in text the passwords of the servers c reaches, the run's
// and each path's own (pgsql.Config.Redact), and those text spells.
func (c *Config) Redact(text string) string {
	text = c.PG.Redact(text)
	for i := range c.Paths {
		if p := c.Paths[i].PG; p != nil {
			text = p.Redact(text)
		}
	}
	return text
}
