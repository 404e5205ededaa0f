package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/runenv"
	"github.com/gbench/gbench/run/series"
)

// fakeRun makes a valid run of l with the given tps and latency.
func fakeRun(order int, l series.Load, repeat int, tps float64, p50, p99 int64) series.Run {
	wal := int64(123456)
	return series.Run{Order: order, Load: l, Repeat: repeat, TPS: tps, Processed: int64(tps * 5), BenchS: 5,
		Latency:  series.Latency{P50Us: p50, P90Us: p99 / 2, P95Us: p99 * 3 / 4, P99Us: p99, P999Us: p99 * 2, MaxUs: p99 * 3},
		Activity: &runenv.Activity{Postgres: &runenv.PostgresActivity{WALBytes: &wal}}}
}

// fakeResult makes a result of kind with a fixed plan and context.
func fakeResult(kind string) *series.Result {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &series.Result{
		Schema: series.Schema, Kind: kind, Start: start, End: start.Add(time.Minute),
		Plan: series.Plan{Commands: map[string][]string{"": {"gbench", "-n", "-f", "q.sql", "-T", "5"}}, Repeats: 2, DurationS: 5, WarmupS: 2, Seed: 7},
		Context: &runenv.Context{
			Gbench:   runenv.Gbench{Version: "0.1.0", Go: "go1.26", Command: []string{"gbench", kind}},
			Client:   runenv.Machine{CPUModel: "Test CPU", Cores: 2, OS: runenv.OS{Sysname: "Linux", Release: "6.1", Machine: "x86_64"}, Load: []float64{1, 2, 3}},
			Postgres: &runenv.Postgres{Version: "15.20", Settings: []runenv.Setting{{Name: "fsync", Value: "off", Source: "command line"}}},
		},
	}
}

// fakeCurve is a closed-loop curve that rises to 2 clients, then stays
// flat; one run had a checkpoint.
func fakeCurve() *series.Result {
	r := fakeResult(series.KindCurve)
	var loads []series.Load
	figures := map[int][2]float64{1: {50, 52}, 2: {99, 101}, 4: {100, 99}, 8: {98, 100}}
	for _, c := range []int{1, 2, 4, 8} {
		loads = append(loads, series.Load{Clients: c})
	}
	for i, l := range loads {
		f := figures[l.Clients]
		r.Runs = append(r.Runs, fakeRun(2*i, l, 1, f[0], 20000*int64(l.Clients), 25000*int64(l.Clients)),
			fakeRun(2*i+1, l, 2, f[1], 21000*int64(l.Clients), 26000*int64(l.Clients)))
	}
	r.Runs[5].Warnings = []string{"1 checkpoint ran inside the measured window"}
	r.Plan.Loads = loads
	r.Curve = series.NewCurve(r.Runs, loads, series.DefaultPlateau)
	return r
}

// fakeSLO is a search found at 150 tps.
func fakeSLO() *series.Result {
	r := fakeResult(series.KindSLO)
	obj, _ := series.ParseObjective("p99<=50ms")
	s := &series.SLO{Objective: obj, Clients: 4, CapacityTPS: 200, LowTPS: 20, HighTPS: 200, Resolution: 0.05, Repeats: 2,
		Outcome: series.OutcomeFound, RateTPS: 150, FailingTPS: 160, Note: "p99<=50ms holds up to 150 tps (confirmed by 2 repeats) and fails at 160 tps"}
	probes := []struct {
		stage string
		rate  float64
		p99   int64
	}{{"capacity", 0, 0}, {"search", 200, 900000}, {"search", 20, 12000}, {"search", 110, 15000}, {"search", 155, 70000},
		{"search", 150, 40000}, {"confirm", 150, 42000}, {"confirm", 150, 44000}}
	for i, p := range probes {
		l := series.Load{Clients: 4, Rate: p.rate}
		achieved := p.rate * 0.98
		if p.rate == 0 {
			achieved = 200 // the closed-loop capacity probe
		}
		run := fakeRun(i, l, 1, achieved, p.p99/2, p.p99)
		if p.rate > 0 {
			run.Lag = &series.Lag{MeanUs: 100, MaxUs: 900}
		}
		r.Runs = append(r.Runs, run)
		pr := series.Probe{Run: i, Stage: p.stage, RateTPS: p.rate, ValueUs: float64(p.p99), Meets: p.p99 > 0 && p.p99 <= 50000}
		s.Probes = append(s.Probes, pr)
	}
	r.SLO = s
	return r
}

// fakeAB is an A/B series where B is 20% faster.
func fakeAB() *series.Result { return fakeABOn("tps") }

// fakeABOn is fakeAB with its verdict on metric.
func fakeABOn(metric string) *series.Result {
	r := fakeResult(series.KindAB)
	r.Plan.Repeats = 3
	a, b := series.Load{Clients: 4, Variant: "A"}, series.Load{Clients: 4, Variant: "B"}
	for i, x := range []float64{100, 120, 101, 121, 99, 119} {
		l := a
		if i%2 == 1 {
			l = b
		}
		r.Runs = append(r.Runs, fakeRun(i, l, i/2+1, x, 1000, 2000))
	}
	r.Plan.Loads = []series.Load{a, b}
	r.AB, _ = series.NewAB(r.Runs, series.Side{Load: a, Settings: []string{"work_mem=4MB"}},
		series.Side{Load: b, Settings: []string{"work_mem=64MB"}}, metric, series.DefaultNoise)
	return r
}

func TestSeriesText(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *series.Result
	}{{"curve", fakeCurve()}, {"slo", fakeSLO()}, {"ab", fakeAB()}} {
		var b bytes.Buffer
		if err := SeriesText(&b, c.r); err != nil {
			t.Fatal(err)
		}
		golden(t, "series/"+c.name+".txt", b.Bytes())
	}
}

func TestSeriesMarkdownAndHTML(t *testing.T) {
	for _, c := range []struct {
		r      *series.Result
		charts []string
		want   []string
	}{
		{fakeCurve(), []string{CurveTPSChart, CurveLatencyChart}, []string{"Knee: 2 clients, 100.0 tps", "checkpoint ran inside the measured window", "| fsync | off | command line |"}},
		{fakeSLO(), []string{SLOChart}, []string{"Highest rate meeting p99<=50ms with 4 clients: 150 tps (found)", "| 8 | confirm | 150 |"}},
		{fakeAB(), []string{ABChart, ABRoundsChart}, []string{"B is better on tps: B/A = 1.200", "| B | work_mem=64MB | 3 |"}},
		// a latency metric is kept in µs and shown in ms, and named so
		{fakeABOn("p99"), []string{ABChart, ABRoundsChart}, []string{"on p99: B/A", "| side | what differs | runs | p99 | range |"}},
	} {
		var md, page bytes.Buffer
		if err := SeriesMarkdown(&md, c.r); err != nil {
			t.Fatal(err)
		}
		if err := SeriesHTML(&page, c.r); err != nil {
			t.Fatal(err)
		}
		charts := SeriesCharts(c.r)
		if len(charts) != len(c.charts) {
			t.Fatalf("%s: %d charts, want %v", c.r.Kind, len(charts), c.charts)
		}
		for i, ch := range charts {
			if ch.Name != c.charts[i] || !strings.Contains(md.String(), "]("+ch.Name+")") {
				t.Errorf("%s: chart %q not linked from the markdown", c.r.Kind, ch.Name)
			}
			var svg bytes.Buffer
			if err := ch.WriteSVG(&svg); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(page.String(), svg.String()) {
				t.Errorf("%s: chart %s is not inline in the page", c.r.Kind, ch.Name)
			}
		}
		for _, w := range c.want {
			if !strings.Contains(md.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.r.Kind, w, md.String())
			}
		}
		p := page.String()
		for _, bad := range []string{"<script", "<link", "src=", "url("} {
			if strings.Contains(p, bad) {
				t.Errorf("%s: the page has %q: it must load nothing", c.r.Kind, bad)
			}
		}
		if !strings.HasPrefix(p, "<!DOCTYPE html>") || strings.Count(p, "<svg ") != len(charts) || strings.Count(p, "<table>") < 3 {
			t.Errorf("%s: page structure:\n%.3000s", c.r.Kind, p)
		}
	}
}

// TestSeriesWaitEvents: runs that sampled wait states get a table of
// them, one without a profile the reason; a series without any has none.
func TestSeriesWaitEvents(t *testing.T) {
	r := fakeCurve()
	var md bytes.Buffer
	if err := SeriesMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Wait events") {
		t.Errorf("a series without wait events has their section")
	}
	r.Runs[0].Activity = &runenv.Activity{WaitEvents: &schema.WaitEvents{Reads: 4, BackendReads: 8, Events: []schema.WaitEvent{
		{State: "active", Type: "Lock", Event: "advisory", Count: 6, Share: 0.75}, {State: "active", Count: 2, Share: 0.25}},
		Cost: schema.WaitCost{Queries: 4, QueriesPerS: 10}}}
	r.Runs[1].Activity = &runenv.Activity{WaitEventsNote: "the wait-state sampler could not start: refused"}
	md.Reset()
	if err := SeriesMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Wait events", "| Lock:advisory 75%, CPU 25% | 10.0 queries/s |", "— (the wait-state sampler could not start: refused)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("no %q in\n%s", want, md.String())
		}
	}
}
