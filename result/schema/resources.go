package schema

// Resources is what a server's cgroups recorded over one sample, as the
// reference benchmark's JSON has it. Each part is absent when it could
// not be read, with the reason in its note: never a zero that was not
// measured.
type Resources struct {
	// Cgroup says which hierarchy each part came from, as "memory v1,
	// io v1, cpu v1" or "memory v2, ...".
	Cgroup     string        `json:"cgroup"`
	Memory     *CgroupMemory `json:"memory,omitempty"`
	MemoryNote string        `json:"memory_note,omitempty"`
	// IO is the block I/O over the sample (v2 io.stat; v1
	// blkio.throttle.io_service_bytes and io_serviced).
	IO     *BlockIO `json:"io,omitempty"`
	IONote string   `json:"io_note,omitempty"`
	// Throttling is the CPU throttling over the sample (cpu.stat's
	// nr_periods, nr_throttled and throttled_usec, or v1 throttled_time;
	// on v1, of the cpu group the server shares with gbench: a group of
	// its own would change its share of the CPU).
	Throttling     *Throttling `json:"throttling,omitempty"`
	ThrottlingNote string      `json:"throttling_note,omitempty"`
	// MemoryEvents are counts over the sample: v2 memory.events' low,
	// high, max, oom and oom_kill; v1 memory.failcnt as "failcnt" and
	// memory.oom_control's oom_kill.
	MemoryEvents     map[string]int64 `json:"memory_events,omitempty"`
	MemoryEventsNote string           `json:"memory_events_note,omitempty"`
}

// CgroupMemory is the cgroup's memory (v2 memory.current, v1
// memory.usage_in_bytes): everything charged to it, anonymous memory,
// shared memory, tmpfs files and page cache included, not process RSS.
type CgroupMemory struct {
	// IntervalS is the period of the reads; Series the reads, the first
	// at the sample's start and the last at its end.
	IntervalS float64      `json:"interval_s"`
	Series    []MemoryRead `json:"series"`
	// PeakBytes is the largest read of the series. KernelPeakBytes is the
	// kernel's own high-water mark over the sample (v1
	// memory.max_usage_in_bytes, reset at the start; v2 memory.peak where
	// it can be reset), which also sees peaks between two reads; absent
	// when unavailable.
	PeakBytes       int64  `json:"peak_bytes"`
	KernelPeakBytes *int64 `json:"kernel_peak_bytes,omitempty"`
	// Source is the file read.
	Source string `json:"source"`
}

// MemoryRead is one read of the cgroup's memory, AtS seconds after the
// sample's start.
type MemoryRead struct {
	AtS   float64 `json:"at_s"`
	Bytes int64   `json:"bytes"`
}

// BlockIO is block I/O over the sample, summed over devices.
type BlockIO struct {
	ReadBytes  int64 `json:"read_bytes"`
	WriteBytes int64 `json:"write_bytes"`
	ReadOps    int64 `json:"read_ops"`
	WriteOps   int64 `json:"write_ops"`
}

// Throttling is CPU bandwidth throttling over the sample. Without a CPU
// limit (cpu.max / cfs_quota_us) the kernel counts no periods, and all
// three are 0 as read.
type Throttling struct {
	Periods    int64   `json:"periods"`
	Throttled  int64   `json:"throttled"`
	ThrottledS float64 `json:"throttled_s"`
}

// WaitEvents is a wait-state profile: pg_stat_activity read at a fixed
// interval on a connection of its own, each client backend but the
// sampler's counted once per read by (state, wait_event_type,
// wait_event).
type WaitEvents struct {
	IntervalS float64 `json:"interval_s"`
	// Reads is the number of reads; BackendReads the backends counted
	// over all of them (the sum of the events' counts).
	Reads        int64       `json:"reads"`
	BackendReads int64       `json:"backend_reads"`
	Events       []WaitEvent `json:"events"`
	// Cost is what the sampler cost the server.
	Cost WaitCost `json:"cost"`
	// Note says what went wrong during the sampling (a failed read).
	Note string `json:"note,omitempty"`
}

// WaitEvent is one wait state: Type and Event are pg_stat_activity's
// wait_event_type and wait_event, empty for a backend that waits for
// nothing (on a CPU, when its state is active; when idle, caught between
// its reply and its wait for the next request); Share is Count over
// BackendReads.
type WaitEvent struct {
	State string  `json:"state"`
	Type  string  `json:"type,omitempty"`
	Event string  `json:"event,omitempty"`
	Count int64   `json:"count"`
	Share float64 `json:"share"`
}

// Name is the event as a report shows it: "Lock:relation", or "CPU" for
// an active backend that waits for nothing; the state follows for any
// state but active ("Client:ClientRead (idle)").
func (e WaitEvent) Name() string {
	n := e.Type + ":" + e.Event
	if e.Type == "" && e.Event == "" {
		n = "CPU"
		if e.State != "active" {
			n = "no wait"
		}
	}
	if e.State != "active" && e.State != "" {
		n += " (" + e.State + ")"
	}
	return n
}

// WaitCost is the sampler's own cost: its queries, their rate, and its
// backend's CPU time over the sampling when the server's processes are
// visible here (BackendCPUNote says why not).
type WaitCost struct {
	Queries        int64    `json:"queries"`
	QueriesPerS    float64  `json:"queries_per_s"`
	BackendCPUS    *float64 `json:"backend_cpu_s,omitempty"`
	BackendCPUNote string   `json:"backend_cpu_note,omitempty"`
}
