package matrix

import (
	"bytes"
	"context"
	"github.com/gbench/gbench/result/schema"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/stats"
)

// testConfig is a small plan with defaults filled in.
func testConfig(t *testing.T, seed uint64) Config {
	t.Helper()
	pg, err := pgsql.ParseConfig("host=127.0.0.1 dbname=x")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Config{PG: pg, Keys: []int{1, 16}, Connections: []int{4, 64}, Repeats: 3, Seed: seed}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOrderIsAShuffleOfThePlan(t *testing.T) {
	c := testConfig(t, 42)
	got := order(&c)
	if len(got) != 3*2*2*3 {
		t.Fatalf("%d samples, want 36", len(got))
	}
	type cellKey struct {
		path        string
		keys, conns int
	}
	repeats := map[cellKey][]int{}
	for _, s := range got {
		k := cellKey{s.path.Name, s.keys, s.conns}
		repeats[k] = append(repeats[k], s.repeat)
	}
	if len(repeats) != 12 {
		t.Errorf("%d cells, want 12", len(repeats))
	}
	for k, r := range repeats {
		if !slices.Equal(r, []int{1, 2, 3}) {
			t.Errorf("%v: repeats in run order %v, want 1, 2, 3", k, r)
		}
	}
	again := order(&c)
	for i := range got {
		if got[i].path.Name != again[i].path.Name || got[i].keys != again[i].keys || got[i].conns != again[i].conns || got[i].seed != again[i].seed {
			t.Fatalf("sample %d differs between two orders of the same seed", i)
		}
	}
	c.Seed = 43
	other := order(&c)
	same := true
	for i := range got {
		same = same && got[i].path.Name == other[i].path.Name && got[i].keys == other[i].keys && got[i].conns == other[i].conns
	}
	if same {
		t.Error("seeds 42 and 43 give the same order")
	}
}

func TestConfigChecks(t *testing.T) {
	pg, _ := pgsql.ParseConfig("host=127.0.0.1")
	paths := ReadPaths()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{PG: pg, Keys: []int{0}}, "invalid keys per request 0"},
		{Config{PG: pg, Connections: []int{-1}}, "invalid connection count -1"},
		{Config{PG: pg, Repeats: -2}, "invalid repeat count -2"},
		{Config{PG: pg, Duration: time.Millisecond}, "invalid duration 1ms"},
		{Config{PG: pg, Paths: []Path{paths[0], paths[0]}}, `path "sql-any" is listed twice`},
		{Config{PG: pg, Requests: 10, Connections: []int{4, 64}}, "10 requests per sample cannot be shared by 64 connections"},
		{Config{PG: pg, Keys: []int{16, 256}, HotRows: 128}, "256 keys per request cannot be distinct among 128 hot rows"},
		{Config{PG: pg, Mixes: []Mix{{Name: "m", Weights: []Weight{{Script: "write", Weight: 5}}}}}, `path "sql-any" has no script "write", which mix "m" runs`},
		{Config{PG: pg, Rates: []float64{-1}}, "invalid rate -1"},
	} {
		_, err := c.cfg.withDefaults()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
	c, err := Config{PG: pg}.withDefaults()
	if err != nil || len(c.Paths) != 3 || !slices.Equal(c.Keys, []int{1, 16, 64}) || !slices.Equal(c.Connections, []int{4, 64, 256}) ||
		c.Repeats != 3 || c.Duration != 5*time.Second || c.Threads != 2 || c.Warmup != time.Second {
		t.Errorf("defaults: %+v, %v", c, err)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},          // nothing
		{[]float64{3}, 3}, // one
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5}, // even: mean of the middle two
	} {
		in := slices.Clone(c.in)
		if got := schema.Median(c.in); got != c.want || !slices.Equal(in, c.in) {
			t.Errorf("Median(%v) = %v, want %v (input kept)", in, got, c.want)
		}
	}
}

func TestCellsUseValidSamplesOnly(t *testing.T) {
	r := &schema.Result{Plan: schema.Plan{Paths: []schema.PlanPath{{Name: "a"}, {Name: "b"}}, Keys: []int{1}, Connections: []int{4}, Repeats: 3}}
	add := func(path string, reqs float64, p99 int64, err string, interrupted bool) {
		r.Samples = append(r.Samples, schema.Sample{Path: path, Keys: 1, Connections: 4, ReqS: reqs, Error: err, Interrupted: interrupted,
			Latency: schema.Latency{P99Us: p99}, Server: &schema.Server{CPU: &schema.CPU{UsPerReq: reqs / 100}}})
	}
	add("a", 100, 10, "", false)
	add("a", 300, 30, "", false)
	add("a", 200, 20, "", false)
	add("b", 50, 1, "", false)
	add("b", 1e9, 1, "2 clients aborted", false) // failed: not counted
	add("b", 1e9, 1, "", true)                   // interrupted: not counted
	cells := r.Cells()
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	a, b := cells[0], cells[1]
	if a.Samples != 3 || a.ReqS != 200 || a.MinReqS != 100 || a.MaxReqS != 300 || a.P99Us != 20 || !a.ServerCPU || a.ServerUsPerReq != 2 {
		t.Errorf("a: %+v", a)
	}
	if b.Samples != 1 || b.ReqS != 50 {
		t.Errorf("b: %+v", b)
	}
	if got := r.Missing(); got != 6-4 {
		t.Errorf("Missing = %d, want 2", got)
	}
}

func TestResultRoundTrip(t *testing.T) {
	r := &schema.Result{
		Schema:  schema.Version,
		Plan:    schema.Plan{Paths: []schema.PlanPath{{Name: "sql-any"}}, Keys: []int{16}, Connections: []int{1}, Repeats: 1, DurationS: 5},
		Samples: []schema.Sample{{Path: "sql-any", Keys: 16, Connections: 1, Repeat: 1, ReqS: 1234.5}},
	}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := schema.Read(&b)
	if err != nil || back.Samples[0].ReqS != 1234.5 {
		t.Fatalf("Read: %+v, %v", back, err)
	}
	if _, err := schema.Read(strings.NewReader(`{"schema": "gbench-result/1"}`)); err == nil || !strings.Contains(err.Error(), `schema is "gbench-result/1"`) {
		t.Errorf("a run's result read as a matrix: %v", err)
	}
	if _, err := schema.Read(strings.NewReader(`nope`)); err == nil {
		t.Error("no error for garbage")
	}
}

func TestReadStatOfAChild(t *testing.T) {
	cmd := exec.Command("sleep", "10")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	st, err := readStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if st.comm != "sleep" || st.ppid != os.Getpid() {
		t.Errorf("stat: %+v, want comm sleep and ppid %d", st, os.Getpid())
	}
	kids, err := children(os.Getpid())
	if err != nil || !slices.Contains(kids, cmd.Process.Pid) {
		t.Errorf("children = %v, %v; want %d among them", kids, err, cmd.Process.Pid)
	}
	if _, _, err := readTreeCPU(os.Getpid()); err != nil {
		t.Error(err)
	}
	m, err := readTreeMemory(os.Getpid())
	if err != nil || m.processes < 2 || m.rss <= 0 {
		t.Errorf("memory: %+v, %v", m, err)
	}
}

// fakeProbe is a server whose CPU time grows by 1 s of user time per read.
type fakeProbe struct {
	reads   int
	counter int64
	note    string
	sigma   float64
}

func (f *fakeProbe) name() string     { return "fake" }
func (f *fakeProbe) costNote() string { return f.note }
func (f *fakeProbe) cpu() (cpuTime, error) {
	f.reads++
	return cpuTime{user: float64(f.reads), source: "fake", sigma: f.sigma}, nil
}
func (f *fakeProbe) memory() (*schema.Memory, error) {
	return &schema.Memory{Bytes: 42, Kind: "rss"}, nil
}
func (f *fakeProbe) counters(context.Context) (map[string]int64, error) {
	f.counter += 7
	return map[string]int64{"n": f.counter}, nil
}
func (f *fakeProbe) mark()                             {}
func (f *fakeProbe) cgroups() Cgroups                  { return Cgroups{} }
func (f *fakeProbe) waitConn() (*pgsql.Client, string) { return nil, "" }
func (f *fakeProbe) settle(context.Context) bool       { return true }

// tick is a progress report of n requests at elapsed.
func tick(elapsed time.Duration, n int64) engine.Progress {
	t := stats.NewTxn()
	t.Cnt = n
	return engine.Progress{Elapsed: elapsed, Txn: t}
}

// tickClock makes m's CPU reads happen at the elapsed time of the tick
// being handled, as if each read took no time.
func tickClock(m *measure) func(engine.Progress) {
	origin := time.Unix(1e9, 0)
	return func(p engine.Progress) {
		m.now = func() time.Time { return origin.Add(p.Elapsed) }
		m.onProgress(p)
	}
}

func TestMeasureSteadyWindow(t *testing.T) {
	pr := newProber()
	defer pr.stop()
	f := &fakeProbe{}
	m := newMeasure(f, pr, 5*time.Second, 0)
	m.begin(context.Background())
	on := tickClock(m)
	for i, n := range []int64{10, 100, 100, 100, 100} {
		on(tick(time.Duration(i+1)*time.Second, n)) // reads 1..4; the 5 s tick is too late
	}
	s := endSample(m)
	// The window runs from the 1 s read (1) to the 4 s read (4): 3 s of CPU
	// for the 300 requests served after the first tick.
	if c := s.CPU; c == nil || c.Window != "steady" || c.Source != "fake" || c.Requests != 300 || c.UserS != 3 || c.WindowS != 3 || c.UsPerReq != 1e4 {
		t.Errorf("cpu: %+v (%s)", s.CPU, s.CPUNote)
	}
	if s.Memory == nil || s.Memory.Bytes != 42 {
		t.Errorf("memory: %+v", s.Memory)
	}
	if s.Counters["n"] != 7 {
		t.Errorf("counters: %v", s.Counters)
	}
}

// endSample ends m and returns the sample's server.
func endSample(m *measure) *schema.Server {
	var s schema.Sample
	m.end(context.Background(), &s)
	return s.Server
}

// TestMeasureRequestCount follows a sample of a fixed request count: CPU
// read at every tick, the last read (in the clients' staggered ends)
// left out, a series recorded with the cache's entries.
func TestMeasureRequestCount(t *testing.T) {
	pr := newProber()
	defer pr.stop()
	f := &fakeProbe{}
	m := newMeasure(f, pr, 0, 500*time.Millisecond)
	cached := int64(0)
	m.cached = func() (int64, error) { cached += 10; return cached, nil }
	m.begin(context.Background())
	on := tickClock(m)
	for i, n := range []int64{50, 100, 100, 100, 20} {
		on(tick(time.Duration(i+1)*500*time.Millisecond, n))
	}
	var s schema.Sample
	m.end(context.Background(), &s)
	// Reads at 0.5, 1, 1.5, 2 and 2.5 s; the window is 0.5 s to 2 s: 3 s of
	// CPU (one per read) for the 300 requests of the three ticks after the
	// first.
	if c := s.Server.CPU; c == nil || c.Requests != 300 || c.UserS != 3 || c.WindowS != 1.5 {
		t.Errorf("cpu: %+v (%s)", c, s.Server.CPUNote)
	}
	if s.Server.Memory == nil {
		t.Error("no memory read at the second tick")
	}
	if len(s.Intervals) != 5 || s.CachedStart == nil || *s.CachedStart != 10 {
		t.Fatalf("series %+v, cached start %v", s.Intervals, s.CachedStart)
	}
	in := s.Intervals[1]
	if in.EndS != 1 || in.Requests != 100 || in.Cached == nil || *in.Cached != 30 || in.P50Us != nil {
		t.Errorf("interval 2: %+v", in)
	}
}

// TestMeasureRefuses checks that a CPU figure that could be wrong is
// absent, with the reason, rather than printed.
func TestMeasureRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ticks []time.Duration // elapsed time of each progress tick
		reqs  int64           // requests per tick
		sigma float64         // rounding of each read
		want  string          // in the note
	}{
		// No tick came: nothing but the whole sample, set-up included.
		{"no tick", nil, 10, 0, "fewer than two CPU reads"},
		// One tick only: no window.
		{"one tick", []time.Duration{time.Second}, 10, 0, "fewer than two CPU reads"},
		// The ticks came late and close together (a loaded machine): the
		// window is 0.1 s of a planned 3 s.
		{"late ticks", []time.Duration{3900 * time.Millisecond, 4 * time.Second}, 10, 0, "steady window lasted 0.100 s"},
		// Requests stalled: nothing to divide by.
		{"no request", []time.Duration{time.Second, 4 * time.Second}, 0, 0, "no request completed"},
		// 3 s of CPU read from a source rounded by ±0.1 s per read: 3σ is
		// 0.42 s, 14% of the figure.
		{"coarse source", []time.Duration{time.Second, 4 * time.Second}, 10, 0.1, "cannot be told within 5%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := newProber()
			defer pr.stop()
			f := &fakeProbe{sigma: tc.sigma}
			m := newMeasure(f, pr, 5*time.Second, 0)
			m.begin(context.Background())
			on := tickClock(m)
			for _, e := range tc.ticks {
				on(tick(e, tc.reqs))
			}
			s := endSample(m)
			if s.CPU != nil || !strings.Contains(s.CPUNote, tc.want) {
				t.Errorf("cpu %+v, note %q; want none and a note with %q", s.CPU, s.CPUNote, tc.want)
			}
		})
	}
}

func TestMeasureUnmeasurableServer(t *testing.T) {
	pr := newProber()
	defer pr.stop()
	f := &fakeProbe{note: "far away"}
	m := newMeasure(f, pr, time.Second, 0)
	m.begin(context.Background())
	m.onProgress(tick(200*time.Millisecond, 5))
	s := endSample(m)
	if s.CPU != nil || s.Memory != nil || f.reads != 0 || len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "far away") {
		t.Errorf("server: %+v (%d reads)", s, f.reads)
	}
}

func TestProberMeasuresItsThread(t *testing.T) {
	if threadCPU() == 0 {
		t.Skip("only Linux reports a thread's CPU time")
	}
	pr := newProber()
	defer pr.stop()
	var spun time.Duration
	busy := pr.do(func() {
		// Spin until the thread's own clock has moved 5 ms: however slow
		// or loaded the machine, the work is then 5 ms of this thread's
		// CPU, which the prober, reading the same clock around it, must
		// see whole (a wall-clock spin may get little CPU on a busy host).
		t0 := threadCPU()
		for spun = 0; spun < 5*time.Millisecond; spun = threadCPU() - t0 {
		}
	})
	if busy < spun {
		t.Errorf("%v of the thread's CPU measured as %v", spun, busy)
	}
}
