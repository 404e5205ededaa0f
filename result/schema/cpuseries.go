package schema

// CPUSeries is a server's CPU time over one sample: cumulative seconds,
// user and system together, read from the same source as the sample's
// CPU figure (Server.CPU), every IntervalS seconds and at both ends of
// the sample. A read that failed is left out (Note says so), never
// written as a zero.
type CPUSeries struct {
	// IntervalS is the period of the reads.
	IntervalS float64 `json:"interval_s"`
	// Source is as CPU.Source: "cgroup", "schedstat" or "INFO cpu".
	Source string `json:"source"`
	// Reads are in time order; the first is at 0 with CPUS 0: the read
	// just before the sample's connections open.
	Reads []CPURead `json:"reads"`
	// Note says what went wrong during the reads (a failed read).
	Note string `json:"note,omitempty"`
}

// CPURead is one read of a CPU series: CPUS seconds of CPU the server
// used between the series' first read and AtS seconds after it.
type CPURead struct {
	AtS  float64 `json:"at_s"`
	CPUS float64 `json:"cpu_s"`
}

// Cores is the CPU the server used between read i-1 and read i, in cores
// (CPU seconds per second); i runs from 1 to len(Reads)-1. A pair of
// reads without time between them has no figure: ok is false.
func (c *CPUSeries) Cores(i int) (cores float64, ok bool) {
	a, b := c.Reads[i-1], c.Reads[i]
	if dt := b.AtS - a.AtS; dt > 0 {
		return (b.CPUS - a.CPUS) / dt, true
	}
	return 0, false
}

// MaxCPUReads bounds a CPU series (a day of reads every 500 ms is 172,800).
const MaxCPUReads = 1 << 20
