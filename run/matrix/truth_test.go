package matrix

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/workloads"
)

// twinProbe reads a second, independent source right after each CPU read
// of the probe under test, so that both cover the same interval.
type twinProbe struct {
	*pgProbe
	twin  func() (cpuTime, error)
	reads []twinRead
}

type twinRead struct {
	twin cpuTime
	gap  time.Duration // from the start of the probe's read to the end of the twin's
}

func (p *twinProbe) cpu() (cpuTime, error) {
	start := time.Now()
	c, err := p.pgProbe.cpu()
	if err != nil {
		return c, err
	}
	t, err := p.twin()
	if err != nil {
		return c, err
	}
	p.reads = append(p.reads, twinRead{t, time.Since(start)})
	return c, nil
}

// TestServerCPUTruth checks the server CPU figure of a matrix sample: the
// cgroup reading the matrix reports for a sandbox's PostgreSQL must agree
// with an independent measurement of the same processes over the same
// window: the scheduler's own run time of the postmaster and each child,
// in nanoseconds, from /proc/PID/schedstat, plus the postmaster's cutime
// and cstime for children reaped (in clock ticks). The tolerance is three
// standard deviations of the tick rounding, plus all the CPU two cores can
// burn in the gap between the two reads.
func TestServerCPUTruth(t *testing.T) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{Postgres: true, MaxConnections: 40})
	if err != nil {
		if requireServices() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer sb.Close()
	if sb.PostgresCgroup() == "" {
		t.Skipf("the sandbox has no cgroup here: %s", sb.CgroupNote())
	}
	pg, err := pgsql.ParseConfig(sb.PostgresConnString())
	if err != nil {
		t.Fatal(err)
	}
	setup, err := pg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	if err := workloads.Load(ctx, setup, nil, workloads.Options{}); err != nil {
		t.Fatal(err)
	}
	pm := sb.PostgresPID()
	probe := &twinProbe{pgProbe: &pgProbe{conn: setup, pm: pm, own: true, cgroup: sb.PostgresCgroup()}}
	probe.twin = func() (cpuTime, error) { return schedstatTree(pm) }
	pr := newProber()
	defer pr.stop()
	r := testRunner(pg)
	cfg, err := r.engineConfig(&slot{path: &sqlPaths(t)[0], keys: 16, conns: 16, seed: 1}, 3*time.Second, 0)
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
	s := sample.Server
	if s.CPU == nil {
		t.Fatalf("no CPU figure: %s (%d twin reads, notes %q)", s.CPUNote, len(probe.reads), s.Notes)
	}
	if s.CPU.Source != "cgroup" {
		t.Fatalf("source %q, want cgroup", s.CPU.Source)
	}
	first, last := probe.reads[0], probe.reads[len(probe.reads)-1]
	got := s.CPU.UserS + s.CPU.SysS
	want := last.twin.user + last.twin.sys - first.twin.user - first.twin.sys
	tol := 3*math.Hypot(first.twin.sigma, last.twin.sigma) + 2*(first.gap+last.gap).Seconds()
	t.Logf("cgroup %.4f s, /proc %.4f s over %.3f s (%d requests): difference %.4f s, tolerance %.4f s",
		got, want, s.CPU.WindowS, s.CPU.Requests, got-want, tol)
	if math.Abs(got-want) > tol {
		t.Errorf("server CPU %.4f s from the cgroup, %.4f s from /proc: differ by more than %.4f s", got, want, tol)
	}
	if want < 3*tol {
		t.Skipf("the server burnt only %.3f s of CPU, too little to compare within %.3f s: is the machine overloaded?", want, tol)
	}
}

// schedstatTree sums the run time of a postmaster and its children from
// schedstat, and adds the times of its reaped children from stat.
func schedstatTree(pm int) (cpuTime, error) {
	kids, err := children(pm)
	if err != nil {
		return cpuTime{}, err
	}
	var ns int64
	for _, pid := range append(kids, pm) {
		b, err := os.ReadFile(fmt.Sprintf("%s/%d/schedstat", procRoot, pid))
		if err != nil {
			continue // reaped: its time is in the postmaster's cutime
		}
		f := strings.Fields(string(b))
		if len(f) == 0 {
			return cpuTime{}, fmt.Errorf("/proc/%d/schedstat: empty", pid)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return cpuTime{}, err
		}
		ns += n
	}
	st, err := readStat(pm)
	if err != nil {
		return cpuTime{}, err
	}
	reaped := seconds(st.cutime + st.cstim)
	return cpuTime{user: float64(ns)/1e9 + reaped, source: "schedstat", sigma: math.Sqrt(2.0/12) / clockTicks}, nil
}

// requireServices reports whether a missing server must fail the test
// rather than skip it (.ci/test.sh sets GBENCH_REQUIRE_SERVICES=1).
func requireServices() bool { return testsrv.Required() }
