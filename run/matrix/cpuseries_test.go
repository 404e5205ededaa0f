package matrix

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/script"
)

// TestCPUSeries runs one connection for 3 s on a sandbox's PostgreSQL,
// first a query that keeps its backend on a CPU, then one that sleeps,
// and checks each sample's CPU series against the sample's CPU figure
// from the same probe: the steady window's CPU time lies between the
// series' reads around its two ends (CPU time only grows, and the series'
// reads and the ticks' share the prober thread, so their timestamps order
// them), the reads are in order and as many as the sample's length
// allows, and the server's cores are near 1 for the busy query, near 0
// for the sleep.
func TestCPUSeries(t *testing.T) {
	ctx := context.Background()
	sb := startSandbox(t, sandbox.Options{Postgres: true})
	pg, setup := openPostgres(t, ctx, sb)
	pr := newProber()
	defer pr.stop()
	// The sandbox's cgroup, when it has one, and /proc's schedstat.
	probes := []*pgProbe{{conn: setup, pm: sb.PostgresPID(), own: true}}
	if cg := sb.PostgresCgroup(); cg != "" {
		probes = append(probes, &pgProbe{conn: setup, pm: sb.PostgresPID(), own: true, cgroup: cg})
	}
	for _, probe := range probes {
		cpuSeriesLoads(t, ctx, pg, probe, pr)
	}
}

func cpuSeriesLoads(t *testing.T, ctx context.Context, pg *pgsql.Config, probe *pgProbe, pr *prober) {
	for _, tc := range []struct {
		name, sql        string
		loCores, hiCores float64
	}{
		// One backend counting: a core, less what the ticks' and series'
		// reads leave it; no more than one core and the server's own
		// background work.
		{"busy", "SELECT count(*) FROM generate_series(1, 3000000);", 0.5, 1.2},
		// One backend asleep: the server's background work only.
		{"sleep", "SELECT pg_sleep(0.25);", 0, 0.1},
	} {
		source, _ := probe.cpu()
		t.Run(source.source+" "+tc.name, func(t *testing.T) {
			m, sample := cpuSeriesSample(t, ctx, pg, probe, pr, tc.sql)
			checkCPUSeries(t, m, sample)
			c := sample.Server.CPUSeries
			var cores []float64
			for i := 2; i < len(c.Reads)-1; i++ { // the intervals inside the run
				if x, ok := c.Cores(i); ok {
					cores = append(cores, x)
				}
			}
			if len(cores) == 0 {
				t.Fatalf("no interval inside the run: %v", c.Reads)
			}
			med := schema.Median(cores)
			t.Logf("median %.3f cores over %d intervals (%s)", med, len(cores), c.Source)
			if med > tc.hiCores || (med < tc.loCores && runenv.LoadAverage()[0] < 1.5) {
				t.Errorf("median %.3f cores, want %.2f to %.2f: %v", med, tc.loCores, tc.hiCores, cores)
			} else if med < tc.loCores {
				t.Skipf("median %.3f cores under a load average of %.1f: the machine is too busy to tell", med, runenv.LoadAverage()[0])
			}
		})
	}
}

// cpuSeriesSample measures a 3 s sample of sql on one connection.
func cpuSeriesSample(t *testing.T, ctx context.Context, pg *pgsql.Config, p probe, pr *prober, sql string) (*measure, *schema.Sample) {
	t.Helper()
	sc, err := script.Parse("load", sql+"\n", 1)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := script.Compile([]*script.Script{sc}, script.Simple, matrixVars)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &engine.Config{Program: prog, Clients: 1, Threads: 1, Duration: 3 * time.Second, MaxTries: 1, Scale: 1,
		SQL: pgsql.Connector(pg)}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	m := newMeasure(p, pr, cfg.Duration, 0)
	m.begin(ctx)
	cfg.OnProgress, cfg.Tick = m.onProgress, m.tick
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m.stopSampling()
	s := &schema.Sample{BenchS: res.Bench.Seconds()}
	m.end(ctx, s)
	if s.Server.CPUSeries == nil || s.Server.CPU == nil && s.Server.CPUNote == "" {
		t.Fatalf("CPU %v (%s), series %v (%s)", s.Server.CPU, s.Server.CPUNote, s.Server.CPUSeries, s.Server.CPUSeriesNote)
	}
	return m, s
}

// checkCPUSeries checks the series of the sample's first server against
// its CPU figure and its length.
func checkCPUSeries(t *testing.T, m *measure, s *schema.Sample) {
	t.Helper()
	c, cpu, sm := s.Server.CPUSeries, s.Server.CPU, m.servers[0]
	if c.IntervalS != 0.5 {
		t.Errorf("series every %v s", c.IntervalS)
	}
	reads := c.Reads
	if reads[0] != (schema.CPURead{}) {
		t.Errorf("first read %v, want 0 at 0", reads[0])
	}
	// The reads: one at the start, at most one per interval, one at the
	// end, which comes after the run.
	span := reads[len(reads)-1].AtS
	if max := 2 + int(span/c.IntervalS); len(reads) < 3 || len(reads) > max {
		t.Errorf("%d reads over %.3f s, want 3 to %d", len(reads), span, max)
	}
	if span < s.BenchS {
		t.Errorf("the series ends at %.3f s, before the run's %.3f s", span, s.BenchS)
	}
	if !slices.IsSortedFunc(reads, func(a, b schema.CPURead) int { return cmpFloat(a.AtS, b.AtS) }) {
		t.Errorf("reads out of order: %v", reads)
	}
	if cpu == nil { // refused: too little CPU for its source's rounding
		t.Logf("no CPU figure to compare: %s", s.Server.CPUNote)
		return
	}
	if c.Source != cpu.Source {
		t.Errorf("series from %q, figure from %q", c.Source, cpu.Source)
	}
	// The steady window's ends, on the series' clock.
	t0 := sm.series.t0
	first, last := sm.reads[0], sm.reads[len(sm.reads)-1]
	loF, hiF := bracket(reads, first.at.Sub(t0).Seconds())
	loL, hiL := bracket(reads, last.at.Sub(t0).Seconds())
	got := cpu.UserS + cpu.SysS
	// Rounding: each read's own (two ticks of a reaped child at most for
	// schedstat, 3σ) and the microseconds of the figures.
	slack := 3*math.Hypot(first.cpu.sigma, last.cpu.sigma)*2 + 6e-6
	lo, hi := loL-hiF-slack, hiL-loF+slack
	t.Logf("steady %.4f s of CPU, the series between %.4f and %.4f s; %d reads over %.3f s", got, lo, hi, len(reads), span)
	if got < lo || got > hi {
		t.Errorf("steady CPU %.4f s, outside the series' %.4f–%.4f s: %v", got, lo, hi, reads)
	}
}

// bracket returns the series' CPU at the last read before at and at the
// first read after it (a read within a microsecond of at, the rounding
// of AtS, is on neither side).
func bracket(reads []schema.CPURead, at float64) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	for _, r := range reads {
		if r.AtS <= at-1e-6 {
			lo = r.CPUS
		}
		if r.AtS >= at+1e-6 && math.IsInf(hi, 1) {
			hi = r.CPUS
		}
	}
	return lo, hi
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestCPUSeriesAbsent checks that a server whose CPU cannot be read gets
// no series but the reason, and that a series whose reads all failed
// after the first is refused, not drawn from one point.
func TestCPUSeriesAbsent(t *testing.T) {
	s, note := startCPUSeries(&pgProbe{note: "the server at db:5432 is not on this machine"}, time.Now)
	if s != nil || note != "CPU not measured: the server at db:5432 is not on this machine" {
		t.Errorf("series %v, note %q", s, note)
	}
	p := &failingProbe{pgProbe: &pgProbe{cgroup: t.TempDir()}}
	if s, note = startCPUSeries(p, time.Now); s != nil || !strings.HasPrefix(note, "the first CPU read failed: ") {
		t.Errorf("series %v, note %q", s, note)
	}
	p.ok = 1
	s, _ = startCPUSeries(p, time.Now)
	s.read(time.Now)
	got, note := s.end(time.Now)
	if got != nil || !strings.HasPrefix(note, "fewer than two CPU reads over the sample: a read failed at ") {
		t.Errorf("series %v, note %q", got, note)
	}
}

// failingProbe answers its first ok CPU reads with 1 s, then fails.
type failingProbe struct {
	*pgProbe
	ok int
}

func (p *failingProbe) cpu() (cpuTime, error) {
	if p.ok > 0 {
		p.ok--
		return cpuTime{total: 1, exact: true, source: "test"}, nil
	}
	return p.pgProbe.cpu()
}
