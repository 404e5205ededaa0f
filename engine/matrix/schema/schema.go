package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gbench/gbench/engine/jsonfile"
	"github.com/gbench/gbench/engine/runenv"
)

// Version identifies the layout of Result; Read refuses others.
const Version = "gbench-matrix/1"

// Result is what a matrix run wrote: its plan, its environment, the
// contract check, the warm-up and every sample, in the order they ran.
// docs/matrix.md describes every field. Field names carry their unit: _us
// microseconds, _s seconds, _bytes bytes, req_s requests per second.
type Result struct {
	Schema string `json:"schema"`
	// Partial is set while the run is in progress and when it stopped
	// before its last sample (Ctrl-C, a failed setup): samples are missing.
	Partial bool `json:"partial"`
	// Interrupted is set when Ctrl-C stopped the run.
	Interrupted bool `json:"interrupted"`
	// FailedSamples counts samples with an Error.
	FailedSamples int       `json:"failed_samples"`
	Start         time.Time `json:"start"`
	End           time.Time `json:"end"`
	Plan          Plan      `json:"plan"`
	// Environment says where and how the run took place.
	Environment Environment `json:"environment"`
	Contract    Contract    `json:"contract"`
	Warmup      []Warmup    `json:"warmup"`
	// Samples are in the order they ran.
	Samples []Sample `json:"samples"`
}

// Plan is what the run was asked to measure.
type Plan struct {
	Paths       []PlanPath `json:"paths"`
	Keys        []int      `json:"keys"`
	Connections []int      `json:"connections"`
	Repeats     int        `json:"repeats"`
	DurationS   float64    `json:"duration_s"`
	Threads     int        `json:"threads"`
	// RandomKeys: each request reads distinct random keys from 1..Items
	// instead of the fixed keys 1..N.
	RandomKeys bool `json:"random_keys"`
	// Seed fixes the order of the samples and the clients' random seeds;
	// "gbench matrix --seed" replays it.
	Seed uint64 `json:"seed"`
	// Items and ValueSize describe the dataset the run read.
	Items     int `json:"items"`
	ValueSize int `json:"value_size"`
	// Loaded is set when the run loaded the dataset itself.
	Loaded  bool    `json:"loaded"`
	WarmupS float64 `json:"warmup_s"`
	// Retries is how many more times a failed sample was to be tried.
	Retries int `json:"retries"`
}

// PlanPath is one read path of the plan.
type PlanPath struct {
	Name string `json:"name"`
	// Mode is the query mode: "prepared" for the SQL paths, "simple" for
	// RESP (which has none).
	Mode string `json:"mode"`
	// Server is "postgres" or "redis".
	Server string `json:"server"`
}

// Contract is the outcome of the contract check (workloads.Contract).
type Contract struct {
	Passed bool   `json:"passed"`
	Error  string `json:"error,omitempty"`
}

// Warmup is one warm-up run; its figures are not results.
type Warmup struct {
	Path        string  `json:"path"`
	Keys        int     `json:"keys"`
	Connections int     `json:"connections"`
	BenchS      float64 `json:"bench_s"`
	Requests    int64   `json:"requests"`
}

// Sample is one measurement: one path, keys per request and connection
// count for the plan's duration.
type Sample struct {
	// Order is the sample's position in the run, from 0.
	Order       int    `json:"order"`
	Path        string `json:"path"`
	Keys        int    `json:"keys"`
	Connections int    `json:"connections"`
	// Repeat numbers the samples of one cell in the order they ran, from 1.
	Repeat int       `json:"repeat"`
	Start  time.Time `json:"start"`
	// RandomSeed is the engine's --random-seed for this sample.
	RandomSeed uint64 `json:"random_seed"`
	// BenchS is the measured time; ConnectS the time spent opening the
	// connections before it, which no figure includes.
	BenchS   float64 `json:"bench_s"`
	ConnectS float64 `json:"connect_s"`
	// Requests counts successful requests, Failures failed ones.
	Requests int64   `json:"requests"`
	Failures int64   `json:"failures"`
	Aborted  int     `json:"aborted_clients"`
	ReqS     float64 `json:"req_s"`
	Latency  Latency `json:"latency"`
	Client   Client  `json:"client"`
	// Server is the cost on the server the path talks to.
	Server *Server `json:"server,omitempty"`
	// Load1 is the machine's one-minute load average at the sample's end.
	Load1 float64 `json:"load1"`
	// Interrupted: Ctrl-C cut the sample short; it is not a result.
	Interrupted bool `json:"interrupted,omitempty"`
	// Error says why the sample failed; empty when it did not.
	Error string `json:"error,omitempty"`
	// Retries are the earlier tries of this sample that failed, oldest
	// first; the sample's own figures are those of its last try.
	Retries []Try `json:"retries,omitempty"`
}

// Try is a failed try of a sample that was then tried again.
type Try struct {
	Start time.Time `json:"start"`
	Error string    `json:"error"`
}

// Failed reports whether the sample failed.
func (s *Sample) Failed() bool { return s.Error != "" }

// Valid reports whether the sample counts as a result: it neither failed
// nor was interrupted.
func (s *Sample) Valid() bool { return !s.Failed() && !s.Interrupted }

// Latency is the latency of a sample's successful requests, in
// microseconds. Percentiles come from an HDR histogram (3 significant
// digits); HDR is that histogram, encoded as in gbench's --json.
type Latency struct {
	MeanUs   float64 `json:"mean_us"`
	StddevUs float64 `json:"stddev_us"`
	P50Us    int64   `json:"p50_us"`
	P90Us    int64   `json:"p90_us"`
	P99Us    int64   `json:"p99_us"`
	P999Us   int64   `json:"p99_9_us"`
	MaxUs    int64   `json:"max_us"`
	HDR      string  `json:"hdr"`
}

// Client is gbench's own CPU time during a sample.
type Client struct {
	UserS float64 `json:"user_s"`
	SysS  float64 `json:"sys_s"`
	// ProbeS is the CPU time the server-cost probes took during the
	// sample, already taken out of UserS and SysS.
	ProbeS float64 `json:"probe_s"`
	// CPUUsPerReq is (UserS + SysS) per request, failed ones included.
	CPUUsPerReq float64 `json:"cpu_us_per_req"`
}

// Server is what a sample cost the server it read from. A part that could
// not be measured is absent and Notes says why.
type Server struct {
	// Name is "postgres" or "redis".
	Name string `json:"name"`
	CPU  *CPU   `json:"cpu,omitempty"`
	// CPUNote says why CPU is absent: the window was too short, the
	// source too coarse for the figure, the server out of reach.
	CPUNote string  `json:"cpu_note,omitempty"`
	Memory  *Memory `json:"memory,omitempty"`
	// Counters are deltas over the whole sample: pg_stat_database's
	// xact_commit, xact_rollback, blks_hit, blks_read, tup_returned and
	// tup_fetched for the run's database, or INFO stats' keyspace_hits,
	// keyspace_misses and total_commands_processed.
	Counters map[string]int64 `json:"counters,omitempty"`
	Notes    []string         `json:"notes,omitempty"`
}

// CPU is the server's CPU time over the steady window of the sample.
type CPU struct {
	// Window is "steady": between the first and the last CPU read at the
	// sample's progress ticks, connection set-up and tear-down excluded.
	// (Results of earlier gbench versions may say "sample": the whole
	// sample, set-up and tear-down included.)
	Window string `json:"window"`
	// Source is where the CPU time was read: "cgroup" (the cgroup v2 of a
	// server gbench started: every process, to the microsecond), "/proc"
	// (the postmaster and its children, in clock ticks) or "INFO cpu"
	// (Redis's own figure).
	Source   string  `json:"source,omitempty"`
	WindowS  float64 `json:"window_s"`
	Requests int64   `json:"requests"`
	UserS    float64 `json:"user_s"`
	SysS     float64 `json:"sys_s"`
	UsPerReq float64 `json:"us_per_req"`
}

// Memory is the server's memory in the middle of the sample.
type Memory struct {
	// Bytes is the headline figure, as Kind says: "pss" (PostgreSQL: the
	// sum of the processes' proportional set sizes, shared memory counted
	// once), "rss" (PostgreSQL when PSS is unreadable: the sum of resident
	// sizes, shared memory counted in every process) or "used_memory"
	// (Redis: its allocator's figure).
	Bytes int64  `json:"bytes"`
	Kind  string `json:"kind"`
	// RSSBytes is the resident size: summed over PostgreSQL's processes,
	// Redis's used_memory_rss.
	RSSBytes int64 `json:"rss_bytes"`
	// AnonBytes (PostgreSQL) is the sum of the processes' private
	// anonymous memory (RssAnon): what the connections themselves take.
	AnonBytes int64 `json:"anon_bytes,omitempty"`
	// Processes is the number of PostgreSQL processes summed.
	Processes int `json:"processes,omitempty"`
}

// Environment says where and how the run took place.
type Environment struct {
	Gbench string `json:"gbench"`
	Go     string `json:"go"`
	// Command is the command line, program name first.
	Command []string `json:"command"`
	// Variables are the environment variables that changed the plan
	// (CONNECTIONS, BATCHES, REPEATS, DURATION_SECONDS), as set.
	Variables map[string]string `json:"variables,omitempty"`
	OS        OS                `json:"os"`
	CPU       MachineCPU        `json:"cpu"`
	// LoadStart and LoadEnd are the 1, 5 and 15 minute load averages.
	LoadStart []float64 `json:"load_start"`
	LoadEnd   []float64 `json:"load_end"`
	Postgres  Endpoint  `json:"postgres"`
	Redis     Endpoint  `json:"redis"`
}

// OS is uname's answer.
type OS = runenv.OS

// MachineCPU describes the processors.
type MachineCPU struct {
	Model string `json:"model"`
	Count int    `json:"count"`
}

// Endpoint is one server the run used.
type Endpoint struct {
	Version string `json:"version"`
	// Sandbox is set for a throwaway server gbench started for the run.
	Sandbox bool `json:"sandbox"`
	// Address is where it listened, without credentials.
	Address  string `json:"address"`
	Database string `json:"database,omitempty"`
	// Settings are the key settings, as the server reports them.
	Settings []Setting `json:"settings"`
	// CostNote says why the server's CPU and memory were not measured.
	CostNote string `json:"cost_note,omitempty"`
	// CPUSource says where the server's CPU time is read: "cgroup" and
	// its directory, "/proc" (PostgreSQL's processes) or "INFO cpu" (Redis).
	CPUSource string `json:"cpu_source,omitempty"`
}

// Setting is one server setting.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Write writes r as indented JSON, ending with a newline.
func (r *Result) Write(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read reads a Result, checks its schema and then that its plan and
// samples are sound (see validate); errors name the line and column of a
// syntax error, or the field that is wrong.
func Read(rd io.Reader) (*Result, error) {
	var r Result
	if err := jsonfile.Decode(rd, &r); err != nil {
		return nil, fmt.Errorf("not a gbench matrix result: %w", err)
	}
	if r.Schema != Version {
		return nil, fmt.Errorf("not a gbench matrix result: schema is %q, expected %q", r.Schema, Version)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("invalid gbench matrix result: %w", err)
	}
	return &r, nil
}
