package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/gbench/gbench/result/jsonfile"
)

// Version identifies the layout of Result that Write writes.
// gbench-matrix/2 added plans as data: mixes of scripts, rates, a fixed
// request count, per-interval series, the scripts themselves, servers per
// path. Read also reads VersionV1, whose results are gbench-matrix/2 ones
// without any of that, and refuses every other version.
const Version = "gbench-matrix/2"

// VersionV1 is the layout of the results of earlier gbench versions: the
// read matrix only.
const VersionV1 = "gbench-matrix/1"

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
	// Thresholds are the verdicts of the cells that have thresholds,
	// checked when the run ends (CheckCells); absent without thresholds.
	Thresholds []CellGates `json:"thresholds,omitempty"`
}

// Plan is what the run was asked to measure. A cell is a path, a mix, a
// keys per request, a connection count and a rate; a dimension the plan
// does not vary (Mixes, Rates, and Keys for a plan whose scripts read no
// list of keys) is empty, and its samples leave the field out.
type Plan struct {
	// Name is the bundled plan's name ("read", "mixed") or the plan file
	// the run read; Title says what the plan measures. Both empty in
	// results of gbench-matrix/1, which always measured the read matrix.
	Name  string     `json:"name,omitempty"`
	Title string     `json:"title,omitempty"`
	Paths []PlanPath `json:"paths"`
	// Mixes are the weighted mixes of each path's scripts; empty when each
	// path runs its one script.
	Mixes       []PlanMix `json:"mixes,omitempty"`
	Keys        []int     `json:"keys"`
	Connections []int     `json:"connections"`
	// Rates are target rates in requests per second (--rate), 0 for none;
	// empty when no sample is throttled.
	Rates   []float64 `json:"rates,omitempty"`
	Repeats int       `json:"repeats"`
	// DurationS is the length of each sample; 0 when Requests is set.
	DurationS float64 `json:"duration_s"`
	// Requests is the number of requests of each sample, shared by its
	// connections; 0 when DurationS is set.
	Requests int64 `json:"requests,omitempty"`
	// IntervalS is the length of the intervals each sample records a
	// series of (Sample.Intervals); 0 when none is recorded.
	IntervalS float64 `json:"interval_s,omitempty"`
	Threads   int     `json:"threads"`
	// RandomKeys: each request reads distinct random keys from 1..Items
	// (from 1..HotRows when that is set) instead of the fixed keys 1..N.
	RandomKeys bool `json:"random_keys"`
	// HotRows, when set, is the number of hot rows random keys are drawn
	// from (1..HotRows).
	HotRows int `json:"hot_rows,omitempty"`
	// Seed fixes the order of the samples and the clients' random seeds;
	// "gbench matrix --seed" replays it.
	Seed uint64 `json:"seed"`
	// Items and ValueSize describe the dataset the run read; KVKeys is the
	// number of keys of the get/set table, given to scripts as :keys by a
	// plan without keys per request.
	Items     int `json:"items"`
	ValueSize int `json:"value_size"`
	KVKeys    int `json:"kv_keys,omitempty"`
	// Sessions is the number of the article's sessions loaded, given to
	// scripts as :sessions by a plan without keys per request.
	Sessions int `json:"sessions,omitempty"`
	// Loaded is set when the run loaded the dataset itself.
	Loaded  bool    `json:"loaded"`
	WarmupS float64 `json:"warmup_s"`
	// Retries is how many more times a failed sample was to be tried.
	Retries int `json:"retries"`
	// Threshold is the threshold list every cell must meet (the plan's
	// threshold and gbench matrix --threshold, comma-joined); a path's own
	// is PlanPath.Threshold. Result.Thresholds has the verdicts.
	Threshold string `json:"threshold,omitempty"`
}

// PlanPath is one path of the plan: a way of serving the requests.
type PlanPath struct {
	Name string `json:"name"`
	// Mode is the query mode: "prepared" for the SQL paths, "simple" for
	// RESP (which has none).
	Mode string `json:"mode"`
	// Server is the server whose cost a sample records first: "postgres"
	// or "redis" (Sample.Server).
	Server string `json:"server"`
	// Scripts are the path's scripts, as run (without the line the plan
	// puts first to set :keys); absent in results of gbench-matrix/1.
	Scripts []PlanScript `json:"scripts,omitempty"`
	// Contract is how the contract check read the path's values back:
	// "rows", "json", "column", "array", or "none" when it did not.
	Contract string `json:"contract,omitempty"`
	// Reset is the script run before each sample (a cold cache); Cached
	// the command whose integer answer counts the cache's entries at each
	// interval.
	Reset  string `json:"reset,omitempty"`
	Cached string `json:"cached,omitempty"`
	// Postgres and RESP are the path's own servers (passwords hidden), when
	// it does not use the plan's.
	Postgres string `json:"postgres,omitempty"`
	RESP     string `json:"resp,omitempty"`
	// Threshold is the threshold list the path's cells must meet besides
	// the plan's.
	Threshold string `json:"threshold,omitempty"`
}

// PlanScript is one script of a path.
type PlanScript struct {
	Name string `json:"name"`
	// Source is where the text came from: a file name, "bundled:NAME" for a
	// bundled workload, or "inline".
	Source string `json:"source"`
	Text   string `json:"text"`
}

// PlanMix is a mix of each path's scripts, chosen per request by weight
// as pgbench's -f file@weight.
type PlanMix struct {
	Name    string       `json:"name"`
	Weights []PlanWeight `json:"weights"`
}

// PlanWeight is one script of a mix.
type PlanWeight struct {
	Script string `json:"script"`
	Weight int    `json:"weight"`
}

// Contract is the outcome of the contract check (workloads.Contract).
type Contract struct {
	Passed bool   `json:"passed"`
	Error  string `json:"error,omitempty"`
	// Paths are the paths the check compared with the dataset; absent in
	// results of gbench-matrix/1, which checked every path.
	Paths []string `json:"paths,omitempty"`
	// Checked is set by gbench-matrix/2 runs: Paths says which paths were
	// checked, and none when it is empty.
	Checked bool `json:"checked,omitempty"`
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
	Order int    `json:"order"`
	Path  string `json:"path"`
	// Mix is the mix's name; empty when the plan has no mixes.
	Mix         string `json:"mix,omitempty"`
	Keys        int    `json:"keys"`
	Connections int    `json:"connections"`
	// Rate is the target rate (requests per second); 0 when unthrottled.
	Rate float64 `json:"rate,omitempty"`
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
	Requests int64 `json:"requests"`
	Failures int64 `json:"failures"`
	// ConnectionFailures and UnavailableS are what a run under --reconnect
	// saw of lost connections (docs/faults.md); absent otherwise.
	ConnectionFailures int64   `json:"connection_failures,omitempty"`
	UnavailableS       float64 `json:"unavailable_s,omitempty"`
	Aborted            int     `json:"aborted_clients"`
	ReqS               float64 `json:"req_s"`
	Latency            Latency `json:"latency"`
	Client             Client  `json:"client"`
	// Reads is what the sample's reads found, counted by the client;
	// absent when no reply counted.
	Reads *Reads `json:"reads,omitempty"`
	// RESP is what the sample's \resp commands counted (issue 23); absent
	// for a path without \resp commands, and in results before it.
	RESP *RESPCounters `json:"resp,omitempty"`
	// Server is the cost on the server the path talks to (the plan path's
	// Server); OtherServers on the others it talks to too.
	Server       *Server  `json:"server,omitempty"`
	OtherServers []Server `json:"other_servers,omitempty"`
	// Intervals is the sample's series, one entry per plan.interval_s, when
	// the plan asks for one; CachedStart the path's cache entries before
	// the sample.
	Intervals   []Interval `json:"intervals,omitempty"`
	CachedStart *int64     `json:"cached_start,omitempty"`
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

// Interval is one interval of a sample's series: what the engine's
// progress report at its end said, and the path's cache entries then.
type Interval struct {
	// EndS is the interval's end, in seconds from the sample's start.
	EndS     float64 `json:"end_s"`
	Requests int64   `json:"requests"`
	Failures int64   `json:"failures"`
	ReqS     float64 `json:"req_s"`
	// P50Us and P99Us are the interval's latency percentiles; absent when
	// no request completed in it.
	P50Us *int64 `json:"p50_us,omitempty"`
	P99Us *int64 `json:"p99_us,omitempty"`
	// Cached is the answer of the path's Cached command at the interval's
	// end; absent when the path has none or the read failed.
	Cached *int64 `json:"cached,omitempty"`
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

// Reads counts a sample's cache reads as the client saw the replies: a
// RESP GET, GETEX or GETDEL reply (and each MGET element) is a hit unless
// it is nil; an SQL command whose last result has a row description is a
// hit when it returned a row and a miss when it returned none. Writes
// (SET, INSERT without RETURNING) count neither. For single-key reads,
// HitRatio is the hit rate obtained; an SQL read of many keys in one
// result counts once.
type Reads struct {
	Hits     int64   `json:"hits"`
	Misses   int64   `json:"misses"`
	HitRatio float64 `json:"hit_ratio"`
}

// RESPCounters are a sample's \resp cache counters as the client counted
// them, gbench --resp-stats's: keyspace hits and misses of GET, GETEX,
// GETDEL and of each MGET element (a nil reply or element is a miss), the
// hash fields HGET and HMGET found and did not, and the bytes of the
// requests and replies on the wire; SQL commands count none of them. The
// per-request figures divide by requests and failures together, as
// Client.CPUUsPerReq does.
type RESPCounters struct {
	Hits          int64 `json:"hits"`
	Misses        int64 `json:"misses"`
	FieldHits     int64 `json:"field_hits"`
	FieldMisses   int64 `json:"field_misses"`
	BytesSent     int64 `json:"bytes_sent"`
	BytesReceived int64 `json:"bytes_received"`
	// HitsPerReq, BytesSentPerReq and BytesReceivedPerReq are per
	// request; 0 when no request completed.
	HitsPerReq          float64 `json:"hits_per_req"`
	BytesSentPerReq     float64 `json:"bytes_sent_per_req"`
	BytesReceivedPerReq float64 `json:"bytes_received_per_req"`
}

// MissRatio is misses over hits and misses; false when there were none.
func (c *RESPCounters) MissRatio() (float64, bool) {
	if n := c.Hits + c.Misses; n > 0 {
		return float64(c.Misses) / float64(n), true
	}
	return 0, false
}

// Server is what a sample cost the server it read from. A part that could
// not be measured is absent and Notes says why.
type Server struct {
	// Name is "postgres" or "redis" for the plan's servers, "postgres PATH"
	// or "redis PATH" for a path's own (Endpoint.Name).
	Name string `json:"name"`
	CPU  *CPU   `json:"cpu,omitempty"`
	// CPUNote says why CPU is absent: the window was too short, the
	// source too coarse for the figure, the server out of reach.
	CPUNote string  `json:"cpu_note,omitempty"`
	Memory  *Memory `json:"memory,omitempty"`
	// Counters are deltas over the whole sample: pg_stat_database's
	// xact_commit, xact_rollback, blks_hit, blks_read, tup_returned and
	// tup_fetched for the run's database, or INFO stats' keyspace_hits,
	// keyspace_misses, total_commands_processed, total_net_input_bytes and
	// total_net_output_bytes.
	Counters map[string]int64 `json:"counters,omitempty"`
	// Resources is the record of the server's cgroups over the sample (a
	// sandbox's servers); ResourcesNote says why it is absent.
	Resources     *Resources `json:"resources,omitempty"`
	ResourcesNote string     `json:"resources_note,omitempty"`
	// WaitEvents is PostgreSQL's wait-state profile over the sample, from
	// pg_stat_activity; WaitEventsNote says why it is absent.
	WaitEvents     *WaitEvents `json:"wait_events,omitempty"`
	WaitEventsNote string      `json:"wait_events_note,omitempty"`
	// CPUSeries is the server's CPU time over the sample, read every
	// CPUSeriesInterval from CPU's source; CPUSeriesNote says why it is
	// absent.
	CPUSeries     *CPUSeries `json:"cpu_series,omitempty"`
	CPUSeriesNote string     `json:"cpu_series_note,omitempty"`
	Notes         []string   `json:"notes,omitempty"`
}

// CPU is the server's CPU time over the steady window of the sample.
type CPU struct {
	// Window is "steady": between the first and the last CPU read at the
	// sample's progress ticks, connection set-up and tear-down excluded.
	// (Results of earlier gbench versions may say "sample": the whole
	// sample, set-up and tear-down included.)
	Window string `json:"window"`
	// Source is where the CPU time was read: "cgroup" (the cgroup v2 of a
	// server gbench started: every process, to the microsecond), "schedstat"
	// (PostgreSQL on this machine: the postmaster's and its live children's
	// run time from /proc/<pid>/schedstat in nanoseconds, plus clock ticks
	// for children reaped inside the window; user_s and sys_s split that
	// total as the processes' clock ticks do), "/proc" (results of earlier
	// gbench versions: clock ticks only) or "INFO cpu" (Redis's own figure).
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
	// Postgres and Redis are the plan's servers; a plan that uses only one
	// of them leaves the other's Version empty.
	Postgres Endpoint `json:"postgres"`
	Redis    Endpoint `json:"redis"`
	// Servers are the servers of paths that have their own.
	Servers []Endpoint `json:"servers,omitempty"`
}

// OS is uname's answer: the kernel's name, release, version and machine.
type OS struct {
	Sysname string `json:"sysname"`
	Release string `json:"release"`
	Version string `json:"version"`
	Machine string `json:"machine"`
}

// MachineCPU describes the processors.
type MachineCPU struct {
	Model string `json:"model"`
	Count int    `json:"count"`
}

// Endpoint is one server the run used.
type Endpoint struct {
	// Name is the name samples give the server (Server.Name): empty for the
	// plan's two, "postgres PATH" or "redis PATH" for a path's own.
	Name    string `json:"name,omitempty"`
	Version string `json:"version"`
	// Sandbox is set for a throwaway server gbench started for the run.
	Sandbox bool `json:"sandbox"`
	// Address is where it listened, without credentials.
	Address  string `json:"address"`
	Database string `json:"database,omitempty"`
	// Settings are the key settings, as the server reports them.
	Settings []Setting `json:"settings"`
	// Durability (PostgreSQL) names fsync, synchronous_commit and
	// full_page_writes together: "on" when all three are on (a sandbox's
	// default), "off" when all three are off (a sandbox under
	// --durability=off), else the three as "fsync=on synchronous_commit=off
	// full_page_writes=on". Absent in results of earlier versions, whose
	// sandboxes ran with all three off.
	Durability string `json:"durability,omitempty"`
	// CostNote says why the server's CPU and memory were not measured.
	CostNote string `json:"cost_note,omitempty"`
	// CPUSource says where the server's CPU time is read: "cgroup" and
	// its directory, "schedstat" (PostgreSQL's processes; "/proc" in earlier versions) or "INFO cpu" (Redis).
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
	if r.Schema != Version && r.Schema != VersionV1 {
		return nil, fmt.Errorf("not a gbench matrix result: schema is %q, expected %q (or %q, of earlier versions)", r.Schema, Version, VersionV1)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("invalid gbench matrix result: %w", err)
	}
	return &r, nil
}
