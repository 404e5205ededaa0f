package matrix

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/result/schema"
)

// Cgroups are the cgroup directories of one server (a sandbox's): V2 a
// cgroup v2, Memory and Blkio the cgroup v1 directories of those
// controllers where the system mounts them as v1, CPU the v1 cpu
// directory the server shares with gbench (sandbox.Cgroups). Each part of the
// resource record is read from V2 when its file is there (the v2
// hierarchy enables that controller), else from the v1 directory, else it
// is absent with the reason. Note says why some directories are missing.
type Cgroups struct {
	V2                 string
	Memory, Blkio, CPU string
	Note               string
}

// any reports whether there is a directory to read.
func (c Cgroups) any() bool { return c.V2 != "" || c.Memory != "" || c.Blkio != "" || c.CPU != "" }

// memInterval is the period of the memory reads during a sample, as the
// reference's (500 ms), besides a read at each end.
const memInterval = 500 * time.Millisecond

// cgFile is a file of a cgroup directory of hierarchy h ("v2", "v1").
type cgFile struct{ dir, name, h string }

// pick returns the first of the files that exists, and its hierarchy.
func pick(candidates ...cgFile) (path, hierarchy string, err error) {
	var tried []string
	for _, c := range candidates {
		if c.dir == "" {
			continue
		}
		p := filepath.Join(c.dir, c.name)
		if _, err := os.Stat(p); err == nil {
			return p, c.h, nil
		}
		tried = append(tried, p)
	}
	if len(tried) == 0 {
		return "", "", errors.New("the server has no cgroup for it")
	}
	return "", "", fmt.Errorf("not found: %s", strings.Join(tried, ", "))
}

// memoryFile is the file of the cgroup's current memory.
func (c Cgroups) memoryFile() (string, string, error) {
	return pick(cgFile{c.V2, "memory.current", "v2"}, cgFile{c.Memory, "memory.usage_in_bytes", "v1"})
}

// readInt reads a file holding one integer.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}

// resetPeak resets the kernel's memory high-water mark (v1
// memory.max_usage_in_bytes takes 0; v2 memory.peak takes any write from
// Linux 6.12, per file descriptor: gbench keeps none open, so v2's is
// read as it stands and reported only when the write worked) and returns
// its file; "" when there is none.
func (c Cgroups) resetPeak() string {
	if c.V2 != "" {
		p := filepath.Join(c.V2, "memory.peak")
		if _, err := os.Stat(p); err == nil {
			return "" // a reset holds only for the descriptor written: not usable here
		}
	}
	if c.Memory != "" {
		p := filepath.Join(c.Memory, "memory.max_usage_in_bytes")
		if os.WriteFile(p, []byte("0"), 0) == nil {
			return p
		}
	}
	return ""
}

// readBlockIO reads the cgroup's block I/O counters, summed over devices.
func (c Cgroups) readBlockIO() (schema.BlockIO, string, error) {
	p, h, err := pick(cgFile{c.V2, "io.stat", "v2"}, cgFile{c.Blkio, "blkio.throttle.io_service_bytes", "v1"})
	if err != nil {
		return schema.BlockIO{}, "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return schema.BlockIO{}, "", err
	}
	if h == "v2" {
		io, err := parseIOStat(string(b))
		return io, h, err
	}
	ops, err := os.ReadFile(filepath.Join(c.Blkio, "blkio.throttle.io_serviced"))
	if err != nil {
		return schema.BlockIO{}, "", err
	}
	io, err := parseBlkio(string(b), string(ops))
	return io, h, err
}

// parseIOStat sums io.stat's "MAJ:MIN rbytes=N wbytes=N rios=N wios=N ..."
// lines.
func parseIOStat(text string) (schema.BlockIO, error) {
	var io schema.BlockIO
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return io, fmt.Errorf("io.stat: %q: %w", f, err)
			}
			switch k {
			case "rbytes":
				io.ReadBytes += n
			case "wbytes":
				io.WriteBytes += n
			case "rios":
				io.ReadOps += n
			case "wios":
				io.WriteOps += n
			}
		}
	}
	return io, nil
}

// parseBlkio sums the "MAJ:MIN Read N" and "MAJ:MIN Write N" lines of
// blkio.throttle.io_service_bytes and io_serviced (the "Total" lines
// repeat them).
func parseBlkio(bytes, ops string) (schema.BlockIO, error) {
	var io schema.BlockIO
	for i, text := range []string{bytes, ops} {
		for _, line := range strings.Split(text, "\n") {
			f := strings.Fields(line)
			if len(f) != 3 {
				continue
			}
			n, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				return io, fmt.Errorf("blkio: %q: %w", line, err)
			}
			r, w := &io.ReadBytes, &io.WriteBytes
			if i == 1 {
				r, w = &io.ReadOps, &io.WriteOps
			}
			switch f[1] {
			case "Read":
				*r += n
			case "Write":
				*w += n
			}
		}
	}
	return io, nil
}

// readThrottling reads cpu.stat's throttling counters: v2's nr_periods,
// nr_throttled and throttled_usec (present when the cpu controller is
// enabled), else v1's nr_periods, nr_throttled and throttled_time (ns).
func (c Cgroups) readThrottling() (schema.Throttling, string, error) {
	if c.V2 != "" {
		if b, err := os.ReadFile(filepath.Join(c.V2, "cpu.stat")); err == nil {
			m := statFields(string(b))
			if _, ok := m["nr_throttled"]; ok {
				return schema.Throttling{Periods: m["nr_periods"], Throttled: m["nr_throttled"], ThrottledS: float64(m["throttled_usec"]) / 1e6}, "v2", nil
			}
		}
	}
	if c.CPU == "" {
		if c.V2 != "" {
			return schema.Throttling{}, "", errors.New("the cgroup v2 has no cpu controller (cpu.stat has no nr_throttled) and there is no cgroup v1 cpu directory")
		}
		return schema.Throttling{}, "", errors.New("the server has no cgroup for it")
	}
	b, err := os.ReadFile(filepath.Join(c.CPU, "cpu.stat"))
	if err != nil {
		return schema.Throttling{}, "", err
	}
	m := statFields(string(b))
	if _, ok := m["nr_throttled"]; !ok {
		return schema.Throttling{}, "", fmt.Errorf("%s has no nr_throttled", filepath.Join(c.CPU, "cpu.stat"))
	}
	return schema.Throttling{Periods: m["nr_periods"], Throttled: m["nr_throttled"], ThrottledS: float64(m["throttled_time"]) / 1e9}, "v1", nil
}

// readMemoryEvents reads v2 memory.events, or v1 memory.failcnt and
// memory.oom_control's oom_kill.
func (c Cgroups) readMemoryEvents() (map[string]int64, string, error) {
	p, h, err := pick(cgFile{c.V2, "memory.events", "v2"}, cgFile{c.Memory, "memory.failcnt", "v1"})
	if err != nil {
		return nil, "", err
	}
	if h == "v2" {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, "", err
		}
		m := statFields(string(b))
		out := map[string]int64{}
		for _, k := range []string{"low", "high", "max", "oom", "oom_kill"} {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
		return out, h, nil
	}
	n, err := readInt(p)
	if err != nil {
		return nil, "", err
	}
	out := map[string]int64{"failcnt": n}
	if b, err := os.ReadFile(filepath.Join(c.Memory, "memory.oom_control")); err == nil {
		if v, ok := statFields(string(b))["oom_kill"]; ok {
			out["oom_kill"] = v
		}
	}
	return out, h, nil
}

// statFields reads "name value" lines.
func statFields(text string) map[string]int64 {
	m := map[string]int64{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			m[k] = n
		}
	}
	return m
}

// resourceMeasure follows one server's cgroups over a sample: the counters
// at its start, and the memory every memInterval and at both ends.
type resourceMeasure struct {
	cg       Cgroups
	start    time.Time
	hier     map[string]string
	notes    map[string]string
	memFile  string
	peakFile string
	series   []schema.MemoryRead
	io0      schema.BlockIO
	thr0     schema.Throttling
	ev0      map[string]int64
}

// beginResources reads the counters at the start of a sample.
func beginResources(cg Cgroups, now time.Time) *resourceMeasure {
	r := &resourceMeasure{cg: cg, start: now, hier: map[string]string{}, notes: map[string]string{}}
	var err error
	if r.memFile, r.hier["memory"], err = cg.memoryFile(); err != nil {
		r.notes["memory"] = err.Error()
	} else {
		r.peakFile = cg.resetPeak()
		r.readMemory(now)
	}
	if r.io0, r.hier["io"], err = cg.readBlockIO(); err != nil {
		r.notes["io"] = err.Error()
	}
	if r.thr0, r.hier["cpu"], err = cg.readThrottling(); err != nil {
		r.notes["cpu"] = err.Error()
	}
	if r.ev0, r.hier["memory events"], err = cg.readMemoryEvents(); err != nil {
		r.notes["events"] = err.Error()
	}
	return r
}

// readMemory adds one memory read to the series.
func (r *resourceMeasure) readMemory(now time.Time) {
	if r.memFile == "" {
		return
	}
	n, err := readInt(r.memFile)
	if err != nil {
		if r.notes["memory"] == "" {
			r.notes["memory"] = "a read failed: " + err.Error()
		}
		return
	}
	r.series = append(r.series, schema.MemoryRead{AtS: micro(now.Sub(r.start).Seconds()), Bytes: n})
}

// end reads the memory at the end of the sample and the counters'
// differences.
func (r *resourceMeasure) end(now time.Time) *schema.Resources {
	r.readMemory(now)
	out := &schema.Resources{}
	var parts []string
	for _, k := range []string{"memory", "io", "cpu"} {
		if h := r.hier[k]; h != "" {
			parts = append(parts, k+" "+h)
		}
	}
	out.Cgroup = strings.Join(parts, ", ")
	switch {
	case r.notes["memory"] != "":
		out.MemoryNote = r.notes["memory"]
	case len(r.series) < 2:
		out.MemoryNote = "fewer than two memory reads"
	default:
		m := &schema.CgroupMemory{IntervalS: memInterval.Seconds(), Series: r.series, Source: r.memFile}
		for _, s := range r.series {
			m.PeakBytes = max(m.PeakBytes, s.Bytes)
		}
		if r.peakFile != "" {
			if n, err := readInt(r.peakFile); err == nil {
				m.KernelPeakBytes = &n
			}
		}
		out.Memory = m
	}
	if out.IONote = r.notes["io"]; out.IONote == "" {
		if io, _, err := r.cg.readBlockIO(); err != nil {
			out.IONote = err.Error()
		} else {
			out.IO = &schema.BlockIO{ReadBytes: io.ReadBytes - r.io0.ReadBytes, WriteBytes: io.WriteBytes - r.io0.WriteBytes,
				ReadOps: io.ReadOps - r.io0.ReadOps, WriteOps: io.WriteOps - r.io0.WriteOps}
		}
	}
	if out.ThrottlingNote = r.notes["cpu"]; out.ThrottlingNote == "" {
		if t, _, err := r.cg.readThrottling(); err != nil {
			out.ThrottlingNote = err.Error()
		} else {
			out.Throttling = &schema.Throttling{Periods: t.Periods - r.thr0.Periods, Throttled: t.Throttled - r.thr0.Throttled,
				ThrottledS: micro(t.ThrottledS - r.thr0.ThrottledS)}
		}
	}
	if out.MemoryEventsNote = r.notes["events"]; out.MemoryEventsNote == "" {
		if ev, _, err := r.cg.readMemoryEvents(); err != nil {
			out.MemoryEventsNote = err.Error()
		} else {
			out.MemoryEvents = map[string]int64{}
			for k, v := range ev {
				out.MemoryEvents[k] = v - r.ev0[k]
			}
		}
	}
	return out
}
