package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/result/jsonfile"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/script"
)

// Schema identifies the layout of Result; ReadResult refuses others.
const Schema = "gbench-result/1"

// Result is the whole result of a run, or of runs merged, as gbench writes
// it with --json and "gbench merge" reads and writes it. docs/json.md
// describes every field. Latencies are microseconds; histograms are
// hdrhistogram-go's base64 V2 compressed encoding of microsecond values,
// so that results merge exactly.
type Result struct {
	Schema    string    `json:"schema"`
	Versions  Versions  `json:"versions"`
	Config    Config    `json:"config"`
	Start     time.Time `json:"start"`
	Durations Durations `json:"durations"`
	// Runs is 1 for a run, the number of runs for a merge.
	Runs int `json:"runs"`
	// Parts describes the runs a merge combined; empty for a run.
	Parts    []Part   `json:"parts,omitempty"`
	TPS      float64  `json:"tps"`
	Counters Counters `json:"counters"`
	Latency  Latency  `json:"latency"`
	Lag      *Simple  `json:"lag,omitempty"`
	// Unstarted counts --rate's slots due by the -T end that no
	// transaction started (engine.Result.Unstarted).
	Unstarted   int64      `json:"unstarted,omitempty"`
	CPU         CPU        `json:"cpu"`
	Scripts     []Script   `json:"scripts"`
	Intervals   []Interval `json:"intervals,omitempty"`
	Aborted     int        `json:"aborted_clients"`
	Interrupted bool       `json:"interrupted"`
	// Availability is what --reconnect saw of the server's outages.
	Availability *Availability `json:"availability,omitempty"`
	// TPCC is the TPC-C-like throughput of a run of its mix (see NOPM).
	TPCC *TPCC `json:"tpcc,omitempty"`
	// Context is who measured on what, against which servers; Activity
	// what the servers did during the run (WAL, checkpoints, autovacuum);
	// Warnings what of it could have disturbed the figures. A merge keeps
	// the contexts of its inputs in its parts.
	Context  *runenv.Context  `json:"context,omitempty"`
	Activity *runenv.Activity `json:"activity,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	// WaitEvents is --wait-events' profile of PostgreSQL's wait states
	// over the run; WaitEventsNote says why it is absent when asked for.
	WaitEvents     *schema.WaitEvents `json:"wait_events,omitempty"`
	WaitEventsNote string             `json:"wait_events_note,omitempty"`
	// Worker is set when the run is one worker's part of a run over
	// several processes (gbench --worker); Fleet when the result is a merge
	// of such parts.
	Worker *Worker `json:"worker,omitempty"`
	Fleet  *Fleet  `json:"fleet,omitempty"`
	// Thresholds is what --threshold made of the run; absent without.
	Thresholds *Gates `json:"thresholds,omitempty"`
	// Warmup is what ran before the measurement (--warmup), discarded;
	// absent without.
	Warmup *Warmup `json:"warmup,omitempty"`
	// Cache counts the \resp commands' hits, misses and bytes; absent
	// when the scripts have none.
	Cache *Cache `json:"cache,omitempty"`
	// Groups are the client groups of a run of several (gbench --group),
	// each with its own result; the rest of the result is then their
	// totals (CombineGroups). Absent for a run of one group.
	Groups []Group `json:"groups,omitempty"`
}

// TPCC is the TPC-C-like mix's throughput: new-order transactions per
// minute and all transactions per minute. Not a TPC-C result.
type TPCC struct {
	NOPM float64 `json:"nopm"`
	TPM  float64 `json:"tpm"`
}

// Versions are the programs that produced a result.
type Versions struct {
	Gbench string `json:"gbench"`
	Server string `json:"server,omitempty"`
	// Transport is how gbench drove its sockets: "io_uring", "epoll" or
	// "portable"; TransportNote why a faster one was refused.
	Transport     string `json:"transport,omitempty"`
	TransportNote string `json:"transport_note,omitempty"`
}

// Config is the run's configuration.
type Config struct {
	Clients int `json:"clients"`
	Threads int `json:"threads"`
	// Mode is "duration" (-T) or "transactions" (-t).
	Mode                  string  `json:"mode"`
	DurationS             float64 `json:"duration_s,omitempty"`
	TransactionsPerClient int64   `json:"transactions_per_client,omitempty"`
	QueryMode             string  `json:"query_mode"`
	Rate                  float64 `json:"rate_tps,omitempty"`
	// RateEnd is where a linear rate ramp ends (a stage's rate=FROM..TO:
	// rate_tps at the start, rate_end_tps at the end); absent at a
	// constant rate.
	RateEnd          float64 `json:"rate_end_tps,omitempty"`
	LatencyLimitMs   float64 `json:"latency_limit_ms,omitempty"`
	MaxTries         int     `json:"max_tries"`
	Connect          bool    `json:"connect"`
	ProgressS        float64 `json:"progress_s,omitempty"`
	PerCommand       bool    `json:"per_command"`
	FailuresDetailed bool    `json:"failures_detailed"`
	// RESPStats is --resp-stats: the summary printed the \resp cache
	// counters (Cache), as a merge of the run's workers then does too.
	RESPStats       bool      `json:"resp_stats,omitempty"`
	SamplingRate    float64   `json:"sampling_rate,omitempty"`
	Scale           int       `json:"scale"`
	PartitionMethod string    `json:"partition_method,omitempty"`
	Partitions      int       `json:"partitions,omitempty"`
	RandomSeed      uint64    `json:"random_seed"`
	Defines         []string  `json:"defines,omitempty"`
	Percentiles     []float64 `json:"percentiles"`
	ContinueOnError bool      `json:"continue_on_error,omitempty"`
	// Reconnect is the --reconnect policy; nil without it.
	Reconnect  *ReconnectPolicy `json:"reconnect,omitempty"`
	IOTimeoutS float64          `json:"io_timeout_s,omitempty"`
}

// ReconnectPolicy is --reconnect's: the first wait, its cap, and the
// failed attempts in a row after which a client aborts (0: no limit).
type ReconnectPolicy struct {
	DelayS    float64 `json:"delay_s"`
	MaxDelayS float64 `json:"max_delay_s"`
	Max       int     `json:"max_reconnects"`
}

// Durations are the run's times, in seconds.
type Durations struct {
	// BenchS is the benchmarking time (pgbench's tps divisor).
	BenchS float64 `json:"bench_s"`
	// InitialConnS is the time spent opening the initial connections.
	InitialConnS float64 `json:"initial_conn_s"`
	// ReconnectS is the time spent connecting and disconnecting under -C.
	ReconnectS float64 `json:"reconnect_s"`
}

// Part is one run of a merge.
type Part struct {
	Start     time.Time `json:"start"`
	BenchS    float64   `json:"bench_s"`
	Clients   int       `json:"clients"`
	Processed int64     `json:"processed"`
	TPS       float64   `json:"tps"`
	Gbench    string    `json:"gbench"`
	Server    string    `json:"server,omitempty"`
	// Context, Activity and Warnings are the run's, as in a run's result.
	Context  *runenv.Context  `json:"context,omitempty"`
	Activity *runenv.Activity `json:"activity,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
	// Worker is the run's, when it was a worker's part of a run.
	Worker *Worker `json:"worker,omitempty"`
}

// Counters count transactions by outcome.
type Counters struct {
	Total                 int64 `json:"total"`
	Processed             int64 `json:"processed"`
	Failed                int64 `json:"failed"`
	SerializationFailures int64 `json:"serialization_failures"`
	DeadlockFailures      int64 `json:"deadlock_failures"`
	OtherFailures         int64 `json:"other_failures"`
	// ConnectionFailures are transactions whose connection was lost,
	// refused or timed out (--reconnect).
	ConnectionFailures int64 `json:"connection_failures,omitempty"`
	Retried            int64 `json:"retried"`
	Retries            int64 `json:"retries"`
	Skipped            int64 `json:"skipped"`
	Late               int64 `json:"late"`
}

// Simple is pgbench's count, sum, sum of squares, min and max of values in
// microseconds, with the mean and standard deviation derived from them.
type Simple struct {
	Count    int64   `json:"count"`
	SumUs    float64 `json:"sum_us"`
	Sum2Us2  float64 `json:"sum2_us2"`
	MinUs    float64 `json:"min_us"`
	MaxUs    float64 `json:"max_us"`
	MeanUs   float64 `json:"mean_us"`
	StddevUs float64 `json:"stddev_us"`
}

// Latency is a latency distribution: pgbench's simple statistics of the
// successful transactions (or of a command's executions), percentiles and
// the histogram they come from.
type Latency struct {
	Simple
	Percentiles []Percentile `json:"percentiles"`
	// HDR is the encoded histogram.
	HDR string `json:"hdr"`
}

// Percentile is one percentile of a histogram.
type Percentile struct {
	// P is the percentile, in (0, 100]; 100 is the maximum.
	P float64 `json:"p"`
	// Us is the value in microseconds, within HDR precision (3 significant
	// digits).
	Us int64 `json:"us"`
}

// CPU is gbench's own CPU time during the benchmark.
type CPU struct {
	UserS float64 `json:"user_s"`
	SysS  float64 `json:"sys_s"`
	// Per transaction executed (processed or failed), in microseconds.
	UserUsPerTxn float64 `json:"user_us_per_txn"`
	SysUsPerTxn  float64 `json:"sys_us_per_txn"`
}

// Script is one script of the run, with its own statistics.
type Script struct {
	Name string `json:"name"`
	// Group is the client group the script ran in, in the result of a
	// run of groups (Result.Groups); absent otherwise.
	Group    string    `json:"group,omitempty"`
	Weight   int       `json:"weight"`
	TPS      float64   `json:"tps"`
	Counters Counters  `json:"counters"`
	Latency  Latency   `json:"latency"`
	Commands []Command `json:"commands"`
}

// Command is one command of a script.
type Command struct {
	Line int `json:"line"`
	// Kind is "SQL" or the meta-command's name ("set", "sleep", "resp").
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Stats is set with per-command statistics (-r).
	Stats *CommandStats `json:"stats,omitempty"`
}

// CommandStats are one command's statistics (-r).
type CommandStats struct {
	Failures       int64            `json:"failures"`
	Retries        int64            `json:"retries"`
	FailureClasses map[string]int64 `json:"failure_classes,omitempty"`
	Latency        Latency          `json:"latency"`
	// Cache is a \resp command's hits, misses and bytes.
	Cache *Cache `json:"cache,omitempty"`
}

// Interval is one -P interval.
type Interval struct {
	// Index is the interval's boundary: it ends at the start plus Index
	// times the -P interval. A merge keeps the boundaries every run has.
	Index    int       `json:"index,omitempty"`
	End      time.Time `json:"end"`
	ElapsedS float64   `json:"elapsed_s"`
	LengthS  float64   `json:"length_s"`
	TPS      float64   `json:"tps"`
	Counters Counters  `json:"counters"`
	Latency  Latency   `json:"latency"`
	Lag      *Simple   `json:"lag,omitempty"`
	// ClientsDown is the number of clients without a connection at the
	// interval's end (--reconnect); Reconnects the reconnections in it.
	ClientsDown int   `json:"clients_down,omitempty"`
	Reconnects  int64 `json:"reconnects,omitempty"`
	// Runs is, in a merge, how many of the runs the interval covers: fewer
	// than the merge's runs when some had stopped or had not reported.
	Runs int `json:"runs,omitempty"`
}

// NewResult builds the result of a finished run from its summary, the
// versions and the -P intervals collected during the run.
func NewResult(s *Summary, v Versions, intervals []Interval) (*Result, error) {
	cfg, res := s.Config, s.Result
	r := &Result{
		Schema: Schema, Versions: v, Config: newConfig(s), Start: res.Start, Runs: 1,
		Durations: Durations{
			BenchS:       res.Bench.Seconds(),
			InitialConnS: res.ConnElapsed.Seconds(),
			ReconnectS:   float64(res.Stats.ConnTime) / 1e6,
		},
		Counters:     newCounters(res.Stats.Total),
		Intervals:    intervals,
		Aborted:      res.Aborted,
		Unstarted:    res.Unstarted,
		Interrupted:  res.Interrupted,
		Availability: newAvailability(s),
	}
	if nopm, tpm, ok := NOPM(s); ok {
		r.TPCC = &TPCC{NOPM: nopm, TPM: tpm}
	}
	r.TPS = rate(r.Counters.Processed, r.Durations.BenchS)
	r.CPU = newCPU(res.UserCPU.Seconds(), res.SysCPU.Seconds(), r.Counters)
	if cfg.Program.HasRESP {
		r.Cache = newCache(&res.Stats.Cache)
	}
	var err error
	if r.Latency, err = newLatency(&res.Stats.Total.Latency, res.Stats.Total.Hist, s.Percentiles); err != nil {
		return nil, err
	}
	if cfg.Rate > 0 {
		r.Lag = newSimple(&res.Stats.Total.Lag)
	}
	for i, sc := range cfg.Program.Scripts {
		js, err := newScript(s, i, sc)
		if err != nil {
			return nil, err
		}
		r.Scripts = append(r.Scripts, js)
	}
	return r, nil
}

func newConfig(s *Summary) Config {
	cfg := s.Config
	c := Config{
		Clients: s.clients(), Threads: s.Result.Threads, Mode: "transactions",
		TransactionsPerClient: cfg.Transactions, QueryMode: cfg.Program.Mode.String(),
		Rate: cfg.Rate, RateEnd: cfg.RateEnd, LatencyLimitMs: float64(cfg.LatencyLimit.Microseconds()) / 1000,
		MaxTries: cfg.MaxTries, Connect: cfg.Connect, ProgressS: cfg.Progress.Seconds(),
		PerCommand: cfg.PerCommand, FailuresDetailed: s.FailuresDetailed, RESPStats: s.RESPStats,
		SamplingRate: cfg.SamplingRate, Scale: s.Scale, RandomSeed: cfg.Seed,
		PartitionMethod: s.PartitionMethod, Partitions: s.Partitions,
		Percentiles:     append([]float64{}, s.Percentiles...),
		ContinueOnError: cfg.ContinueOnError, IOTimeoutS: cfg.IOTimeout.Seconds(),
	}
	if p := cfg.Reconnect; p != nil {
		q := *p
		c.Reconnect = &q
	}
	if cfg.Duration > 0 {
		c.Mode, c.DurationS, c.TransactionsPerClient = "duration", cfg.Duration.Seconds(), 0
	}
	c.Defines = append(c.Defines, cfg.Defines...)
	return c
}

func newScript(s *Summary, i int, sc *script.Script) (Script, error) {
	st := s.Result.Stats.Scripts[i]
	js := Script{Name: sc.Name, Weight: sc.Weight, Counters: newCounters(st)}
	js.TPS = rate(js.Counters.Processed, s.Result.Bench.Seconds())
	var err error
	if js.Latency, err = newLatency(&st.Latency, st.Hist, s.Percentiles); err != nil {
		return js, err
	}
	for j, c := range sc.Commands {
		jc := Command{Line: c.Line, Kind: c.Name, Text: c.FirstLine}
		if c.SQL != nil {
			jc.Text = c.SQL.Text
		}
		if cmds := s.Result.Stats.Commands; cmds != nil {
			cs := &cmds[i][j]
			jc.Stats = &CommandStats{Failures: cs.Failures, Retries: cs.Retries, FailureClasses: cs.Classes}
			if c.RESP != nil {
				jc.Stats.Cache = newCache(&cs.Cache)
			}
			if jc.Stats.Latency, err = newLatency(&cs.Latency, cs.Hist, s.Percentiles); err != nil {
				return js, err
			}
		}
		js.Commands = append(js.Commands, jc)
	}
	return js, nil
}

func newCounters(t *stats.Txn) Counters {
	return Counters{
		Total: t.Total(), Processed: t.Cnt, Failed: t.Failures(),
		SerializationFailures: t.SerializationFailures, DeadlockFailures: t.DeadlockFailures,
		OtherFailures: t.OtherFailures, ConnectionFailures: t.ConnectionFailures,
		Retried: t.Retried, Retries: t.Retries, Skipped: t.Skipped, Late: t.Late,
	}
}

// add adds o's counts into c.
func (c *Counters) add(o *Counters) {
	c.Total += o.Total
	c.Processed += o.Processed
	c.Failed += o.Failed
	c.SerializationFailures += o.SerializationFailures
	c.DeadlockFailures += o.DeadlockFailures
	c.OtherFailures += o.OtherFailures
	c.ConnectionFailures += o.ConnectionFailures
	c.Retried += o.Retried
	c.Retries += o.Retries
	c.Skipped += o.Skipped
	c.Late += o.Late
}

func newSimple(s *stats.Simple) *Simple {
	return &Simple{
		Count: s.Count, SumUs: s.Sum, Sum2Us2: s.Sum2, MinUs: s.Min, MaxUs: s.Max,
		MeanUs: s.Mean(), StddevUs: s.Stddev(),
	}
}

// stats returns the simple statistics s describes.
func (s *Simple) stats() stats.Simple {
	return stats.Simple{Count: s.Count, Min: s.MinUs, Max: s.MaxUs, Sum: s.SumUs, Sum2: s.Sum2Us2}
}

// newLatency describes a distribution and encodes its histogram.
func newLatency(s *stats.Simple, h *stats.Hist, percentiles []float64) (Latency, error) {
	l := Latency{Simple: *newSimple(s), Percentiles: newPercentiles(h, percentiles)}
	enc, err := h.Raw().Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return l, fmt.Errorf("encoding a histogram: %w", err)
	}
	l.HDR = string(enc)
	return l, nil
}

// newPercentiles reads the percentiles of h; none when h is empty.
func newPercentiles(h *stats.Hist, ps []float64) []Percentile {
	if h.Count() == 0 {
		return []Percentile{}
	}
	out := make([]Percentile, len(ps))
	for i, p := range ps {
		out[i] = Percentile{P: p, Us: h.Quantile(p)}
	}
	return out
}

// Hist decodes the latency histogram, which must be one of gbench's.
func (l *Latency) Hist() (*stats.Hist, error) { return decodeHist(l.HDR) }

func newCPU(user, sys float64, c Counters) CPU {
	cpu := CPU{UserS: user, SysS: sys}
	if n := c.Processed + c.Failed; n > 0 {
		cpu.UserUsPerTxn = user * 1e6 / float64(n)
		cpu.SysUsPerTxn = sys * 1e6 / float64(n)
	}
	return cpu
}

// rate is n per second over secs, 0 for no time.
func rate(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}

// Intervals collects the -P intervals of a run for its Result. Add is
// called from the engine's progress goroutine; List after the run.
type Intervals struct {
	// Percentiles are the percentiles computed for each interval.
	Percentiles []float64
	// Lag keeps each interval's schedule lag (--rate).
	Lag  bool
	list []Interval
}

// Add records one interval; it encodes the interval's histogram, which it
// does not keep.
func (iv *Intervals) Add(p engine.Progress) error {
	t := p.Txn
	in := Interval{
		Index: p.Index, End: p.Wall, ElapsedS: p.Elapsed.Seconds(), LengthS: p.Interval.Seconds(),
		Counters: newCounters(t), ClientsDown: p.Down,
	}
	if p.Block != nil {
		in.Reconnects = p.Block.Reconnects
	}
	in.TPS = rate(t.Cnt, in.LengthS)
	var err error
	if in.Latency, err = newLatency(&t.Latency, t.Hist, iv.Percentiles); err != nil {
		return err
	}
	if iv.Lag {
		in.Lag = newSimple(&t.Lag)
	}
	iv.list = append(iv.list, in)
	return nil
}

// List returns the intervals recorded so far; the slice is the collector's.
func (iv *Intervals) List() []Interval { return iv.list }

// Write writes r as indented JSON, ending with a newline.
func (r *Result) Write(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadResult reads a Result, checks its schema and then its figures (see
// Merge): errors name the line and column of a syntax error, or the field
// that is wrong.
func ReadResult(rd io.Reader) (*Result, error) {
	var r Result
	if err := jsonfile.Decode(rd, &r); err != nil {
		return nil, fmt.Errorf("not a gbench result: %w", err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("not a gbench result: schema is %q, expected %q", r.Schema, Schema)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("invalid gbench result: %w", err)
	}
	return &r, nil
}
