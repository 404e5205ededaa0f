package matrix

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/sandbox"
)

// twinProbe reads a second, independent source right before and right
// after each CPU read of the probe under test. CPU time only grows, so
// the probe's read, taken between the two, lies between them (each read
// taking its time, a value lies between the counters at its start and at
// its end): the brackets bound what the probe may report, up to each
// source's rounding.
type twinProbe struct {
	*pgProbe
	twin  func() (cpuTime, error)
	reads []twinRead
}

type twinRead struct {
	probe, before, after cpuTime
}

func (p *twinProbe) cpu() (cpuTime, error) {
	b, err := p.twin()
	if err != nil {
		return cpuTime{}, err
	}
	c, err := p.pgProbe.cpu()
	if err != nil {
		return c, err
	}
	a, err := p.twin()
	if err != nil {
		return c, err
	}
	p.reads = append(p.reads, twinRead{c, b, a})
	return c, nil
}

// TestServerCPUTruth checks the server CPU figure of a matrix sample
// against an independent measurement of the same processes over the same
// window, both ways: the cgroup reading the matrix reports for a
// sandbox's PostgreSQL (16 connections) against the /proc reading
// (the scheduler's run time of the postmaster and each child from
// /proc/PID/schedstat, in nanoseconds, plus the postmaster's cutime and
// cstime for children reaped, in clock ticks), and the /proc reading the
// matrix reports for a server it did not start (`--pg`), at the
// reference's 256 connections, against the cgroup. The twin is read
// right before and right after each of the probe's reads, so the figure
// must lie between the twin's narrowest and widest window, widened by
// three standard deviations of the reads' rounding (each source's sigma:
// the clock ticks of reaped children, the cgroup's microseconds).
func TestServerCPUTruth(t *testing.T) {
	for _, tc := range []struct {
		name      string
		conns     int
		viaCgroup bool // the probe under test reads the cgroup, the twin /proc
	}{
		{"cgroup at 16 connections", 16, true},
		{"schedstat at 256 connections", 256, false},
	} {
		t.Run(tc.name, func(t *testing.T) { cpuTruth(t, tc.conns, tc.viaCgroup) })
	}
}

func cpuTruth(t *testing.T, conns int, viaCgroup bool) {
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{Postgres: true, MaxConnections: conns + 20})
	if err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			testsrv.Need(t, "no server binaries for the sandbox: %v", err)
		}
		t.Fatal(err)
	}
	defer sb.Close()
	if sb.PostgresCgroup() == "" {
		testsrv.Need(t, "the sandbox has no cgroup here: %s", sb.CgroupNote())
	}
	pg, setup := loadedPostgres(t, ctx, sb)
	pm, cg := sb.PostgresPID(), sb.PostgresCgroup()
	viaProc := &pgProbe{pm: pm}
	probe := &twinProbe{pgProbe: &pgProbe{conn: setup, pm: pm, own: true}}
	wantSource := "schedstat"
	probe.twin = func() (cpuTime, error) { return readCgroupCPU(cg) }
	if viaCgroup {
		probe.cgroup, wantSource = cg, "cgroup"
		probe.twin = viaProc.cpu
	}
	pr := newProber()
	defer pr.stop()
	r := testRunner(pg)
	cfg, err := r.engineConfig(&slot{path: &sqlPaths(t)[0], keys: 16, conns: conns, seed: 1}, 3*time.Second, 0)
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
	if s.CPU == nil && strings.Contains(s.CPUNote, "late progress ticks") {
		// The measure refuses a window its ticks left too short, as it
		// must on a loaded machine: there is no figure to check.
		t.Skipf("no CPU figure, rightly refused: %s", s.CPUNote)
	}
	if s.CPU == nil {
		t.Fatalf("no CPU figure: %s (%d twin reads, notes %q)", s.CPUNote, len(probe.reads), s.Notes)
	}
	if s.CPU.Source != wantSource {
		t.Fatalf("source %q, want %s", s.CPU.Source, wantSource)
	}
	// The twin brackets the CPU series' reads too: take those of the
	// steady window's ends.
	ticks := m.servers[0].reads
	first, last := twinOf(t, probe.reads, ticks[0].cpu), twinOf(t, probe.reads, ticks[len(ticks)-1].cpu)
	got := s.CPU.UserS + s.CPU.SysS
	// The window's CPU time lies between the narrowest and the widest
	// bracket of the twin's reads; the reads' rounding widens it by three
	// standard deviations of the four reads it is made of and the
	// probe's two. The widths (the CPU burnt during the reads
	// themselves) are measured, not guessed.
	lo := last.before.used() - first.after.used()
	hi := last.after.used() - first.before.used()
	sq := func(x float64) float64 { return x * x }
	sigma := math.Sqrt(sq(first.before.sigma) + sq(first.after.sigma) + sq(last.before.sigma) + sq(last.after.sigma) +
		sq(first.probe.sigma) + sq(last.probe.sigma))
	t.Logf("%s %.4f s; twin between %.4f and %.4f s, ±%.4f s (3σ) over %.3f s (%d requests, %d connections)",
		s.CPU.Source, got, lo, hi, 3*sigma, s.CPU.WindowS, s.CPU.Requests, conns)
	if got < lo-3*sigma || got > hi+3*sigma {
		t.Errorf("server CPU %.4f s from %s, outside its twin's %.4f–%.4f s (±%.4f s)", got, s.CPU.Source, lo, hi, 3*sigma)
	}
	if width := hi - lo + 6*sigma; lo < 3*width {
		t.Skipf("the server burnt only %.3f s of CPU, too little to compare within a bracket of %.3f s: is the machine overloaded?", lo, width)
	}
}

// twinOf is the twin read around the probe's read c.
func twinOf(t *testing.T, reads []twinRead, c cpuTime) twinRead {
	for _, r := range reads {
		if r.probe == c {
			return r
		}
	}
	t.Fatalf("no twin read around %+v", c)
	return twinRead{}
}
