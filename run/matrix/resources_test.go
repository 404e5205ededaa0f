package matrix

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/sandbox"
)

// TestCgroupV2Readers reads the recorded files of a cgroup v2 with its
// controllers enabled (testdata/cgroupv2).
func TestCgroupV2Readers(t *testing.T) {
	cg := Cgroups{V2: "testdata/cgroupv2"}
	f, h, err := cg.memoryFile()
	if err != nil || h != "v2" || filepath.Base(f) != "memory.current" {
		t.Fatalf("memory file %q %q %v", f, h, err)
	}
	io, h, err := cg.readBlockIO()
	if err != nil || h != "v2" || io != (schema.BlockIO{ReadBytes: 12288, WriteBytes: 1048576, ReadOps: 3, WriteOps: 16}) {
		t.Errorf("io %+v %q %v", io, h, err)
	}
	thr, h, err := cg.readThrottling()
	if err != nil || h != "v2" || thr != (schema.Throttling{Periods: 100, Throttled: 7, ThrottledS: 0.25}) {
		t.Errorf("throttling %+v %q %v", thr, h, err)
	}
	ev, h, err := cg.readMemoryEvents()
	if err != nil || h != "v2" || len(ev) != 5 || ev["high"] != 3 || ev["max"] != 1 || ev["oom_kill"] != 0 {
		t.Errorf("events %v %q %v", ev, h, err)
	}
	// A v2 memory.peak is not reset (a write resets it only for the
	// descriptor written), so it is not reported as the sample's.
	if p := cg.resetPeak(); p != "" {
		t.Errorf("resetPeak = %q on v2", p)
	}
	// Over a sample whose counters did not move, the differences are 0
	// and the memory series is the reads at both ends.
	r := beginResources(cg, time.Unix(0, 0))
	out := r.end(time.Unix(1, 0))
	if out.Cgroup != "memory v2, io v2, cpu v2" || out.Memory == nil || len(out.Memory.Series) != 2 || out.Memory.PeakBytes != 52428800 ||
		out.Memory.Series[1].AtS != 1 || out.IO == nil || *out.IO != (schema.BlockIO{}) || out.Throttling == nil || out.MemoryEvents["high"] != 0 {
		t.Errorf("resources %+v (memory %+v)", out, out.Memory)
	}
	// A cgroup v2 without the cpu controller has no throttling counters:
	// absent with the reason, not 0.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cpu.stat"), []byte("usage_usec 5\nuser_usec 3\nsystem_usec 2\n"), 0o644)
	out = beginResources(Cgroups{V2: dir}, time.Unix(0, 0)).end(time.Unix(1, 0))
	if out.Throttling != nil || !strings.Contains(out.ThrottlingNote, "no cpu controller") || out.Memory != nil || out.MemoryNote == "" ||
		out.IO != nil || out.IONote == "" || out.MemoryEvents != nil || out.MemoryEventsNote == "" {
		t.Errorf("v2 without controllers: %+v", out)
	}
}

// TestCgroupV1Live reads a sandbox's PostgreSQL cgroups on a system whose
// memory, blkio and cpu controllers are cgroup v1's (this machine's), over
// a real sample: each figure against the kernel's own file.
func TestCgroupV1Live(t *testing.T) {
	ctx := context.Background()
	sb := startSandbox(t, sandbox.Options{Postgres: true})
	cgs := Cgroups(sb.PostgresCgroups())
	if cgs.Memory == "" || cgs.Blkio == "" || cgs.CPU == "" {
		t.Skipf("no cgroup v1 memory, blkio and cpu directories here: %+v", cgs)
	}
	pg, setup := loadedPostgres(t, ctx, sb)
	// The v1 readers against the files read directly.
	f, h, err := cgs.memoryFile()
	if err != nil || h != "v1" || f != filepath.Join(cgs.Memory, "memory.usage_in_bytes") {
		t.Fatalf("memory file %q %q %v", f, h, err)
	}
	ev, _, err := cgs.readMemoryEvents()
	if fc := readFileInt(t, filepath.Join(cgs.Memory, "memory.failcnt")); err != nil || ev["failcnt"] != fc {
		t.Errorf("failcnt %v (%v), file %d", ev, err, fc)
	}
	thr, h, err := cgs.readThrottling()
	if err != nil || h != "v1" || thr.Periods != statOf(t, filepath.Join(cgs.CPU, "cpu.stat"), "nr_periods") {
		t.Errorf("throttling %+v %q %v", thr, h, err)
	}
	io, h, err := cgs.readBlockIO()
	if err != nil || h != "v1" || io.ReadBytes+io.WriteBytes != blkioTotal(t, filepath.Join(cgs.Blkio, "blkio.throttle.io_service_bytes")) {
		t.Errorf("io %+v %q %v", io, h, err)
	}

	w, err := pg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	probe := &pgProbe{conn: setup, pm: sb.PostgresPID(), own: true, cgroup: sb.PostgresCgroup(), cgs: cgs, waits: w}
	pr := newProber()
	defer pr.stop()
	r := testRunner(pg)
	cfg, err := r.engineConfig(&slot{path: &sqlPaths(t)[0], keys: 16, conns: 16, seed: 1}, 2*time.Second, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := newMeasure(probe, pr, cfg.Duration, 0)
	m.begin(ctx)
	cfg.OnProgress, cfg.Tick = m.onProgress, m.tick
	if _, err := engine.Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	var sample schema.Sample
	m.end(ctx, &sample)
	res := sample.Server.Resources
	if res == nil {
		t.Fatalf("no resources: %q", sample.Server.ResourcesNote)
	}
	t.Logf("cgroup %s: memory %+v; io %+v; throttling %+v; events %v", res.Cgroup, res.Memory, res.IO, res.Throttling, res.MemoryEvents)
	if res.Cgroup != "memory v1, io v1, cpu v1" || res.Memory == nil || res.IO == nil || res.Throttling == nil || res.MemoryEvents == nil {
		t.Fatalf("resources %+v", res)
	}
	mem := res.Memory
	// A read at each end and one every 500 ms between: a 2 s sample has
	// at least the two ends; the ticker's reads come late on a loaded
	// machine, never early, so no more than 2 + 2 s / 500 ms.
	if n := len(mem.Series); n < 2 || n > 2+int(cfg.Duration/memInterval)+1 || mem.Series[0].AtS != 0 {
		t.Errorf("%d memory reads: %+v", n, mem.Series)
	}
	// The kernel's high-water mark since the reset at the start bounds
	// every read, and the series' peak is one of them.
	if mem.KernelPeakBytes == nil || mem.PeakBytes <= 0 || mem.PeakBytes > *mem.KernelPeakBytes {
		t.Errorf("peak %d, kernel peak %v", mem.PeakBytes, mem.KernelPeakBytes)
	}
	// After the sample the server still holds at least what its
	// backends' shared memory and the loaded table took; the cgroup
	// counts it (the file read directly now, against the end read, both
	// positive and the same order: the server is idle).
	now := readFileInt(t, filepath.Join(cgs.Memory, "memory.usage_in_bytes"))
	last := mem.Series[len(mem.Series)-1].Bytes
	if now <= 0 || last <= 0 {
		t.Errorf("memory now %d, at the end %d", now, last)
	}
	if wv := sample.Server.WaitEvents; wv == nil || wv.Reads == 0 || wv.BackendReads == 0 || len(wv.Events) == 0 {
		t.Errorf("wait events %+v (note %q)", wv, sample.Server.WaitEventsNote)
	} else {
		t.Logf("wait events: %d reads, %+v, cost %+v", wv.Reads, wv.Events, wv.Cost)
	}
}

func readFileInt(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func statOf(t *testing.T, path, key string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatalf("%s has no %s", path, key)
	return 0
}

// blkioTotal sums the per-device "Total" lines of a blkio file (the
// kernel's own Read+Write+Discard; there is no discard on these
// servers), or its last line "Total N".
func blkioTotal(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[1] == "Total" {
			n, _ := strconv.ParseInt(f[2], 10, 64)
			sum += n
		}
	}
	return sum
}
