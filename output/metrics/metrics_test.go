package metrics

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// fakeRun is a run of two scripts with per-command statistics.
func fakeRun(t *testing.T) (Run, *stats.Block) {
	t.Helper()
	a, err := script.Parse("a.sql", "\\set k random(1, 10)\nSELECT :k;\n", 1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := script.Parse("b.sql", "\\resp GET k\n", 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{a, b}, script.Simple, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &engine.Config{Program: p, Clients: 4, Threads: 2, Rate: 100, PerCommand: true}
	return Run{RunID: "r1", Worker: 1, Workers: 3, Version: "0.1.0", Config: cfg, Clients: 2, Threads: 1, Rate: 33.5},
		stats.NewBlock([]int{2, 1}, true)
}

// TestCollect: the counters are the engine's counts and each histogram
// bucket counts the values up to its bound, the sums the exact sums,
// after two ticks.
func TestCollect(t *testing.T) {
	run, block := fakeRun(t)
	e := New(run)
	for _, us := range []int64{40, 40, 700, 3000, 20_000_000} { // 20 s: beyond the last bound
		block.Scripts[0].Record(stats.OK, float64(us), 5, 1)
		block.Total.Record(stats.OK, float64(us), 5, 1)
	}
	block.Scripts[0].Record(stats.SerializationFailure, 0, 0, 3)
	block.Scripts[1].Record(stats.Skipped, 0, 0, 1)
	block.Commands[0][1].Latency.Add(250)
	block.Commands[0][1].Hist.Record(250)
	block.Commands[0][1].Failures = 1
	block.Commands[0][1].Classes = map[string]int64{"40001": 1}
	e.Update(engine.Progress{Block: block, Wall: time.Unix(100, 0), Elapsed: time.Second})
	e.Update(engine.Progress{Block: stats.NewBlock([]int{2, 1}, true), Wall: time.Unix(101, 0), Elapsed: 2 * time.Second})
	want := `
# HELP gbench_latency_seconds Latency of successful transactions, from their scheduled start under --rate.
# TYPE gbench_latency_seconds histogram
gbench_latency_seconds_bucket{script="a.sql",le="5e-05"} 2
gbench_latency_seconds_bucket{script="a.sql",le="0.0001"} 2
gbench_latency_seconds_bucket{script="a.sql",le="0.00025"} 2
gbench_latency_seconds_bucket{script="a.sql",le="0.0005"} 2
gbench_latency_seconds_bucket{script="a.sql",le="0.001"} 3
gbench_latency_seconds_bucket{script="a.sql",le="0.0025"} 3
gbench_latency_seconds_bucket{script="a.sql",le="0.005"} 4
gbench_latency_seconds_bucket{script="a.sql",le="0.01"} 4
gbench_latency_seconds_bucket{script="a.sql",le="0.025"} 4
gbench_latency_seconds_bucket{script="a.sql",le="0.05"} 4
gbench_latency_seconds_bucket{script="a.sql",le="0.1"} 4
gbench_latency_seconds_bucket{script="a.sql",le="0.25"} 4
gbench_latency_seconds_bucket{script="a.sql",le="0.5"} 4
gbench_latency_seconds_bucket{script="a.sql",le="1"} 4
gbench_latency_seconds_bucket{script="a.sql",le="2.5"} 4
gbench_latency_seconds_bucket{script="a.sql",le="5"} 4
gbench_latency_seconds_bucket{script="a.sql",le="10"} 4
gbench_latency_seconds_bucket{script="a.sql",le="+Inf"} 5
gbench_latency_seconds_sum{script="a.sql"} 20.00378
gbench_latency_seconds_count{script="a.sql"} 5
gbench_latency_seconds_bucket{script="b.sql",le="5e-05"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.0001"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.00025"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.0005"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.001"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.0025"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.005"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.01"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.025"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.05"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.1"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.25"} 0
gbench_latency_seconds_bucket{script="b.sql",le="0.5"} 0
gbench_latency_seconds_bucket{script="b.sql",le="1"} 0
gbench_latency_seconds_bucket{script="b.sql",le="2.5"} 0
gbench_latency_seconds_bucket{script="b.sql",le="5"} 0
gbench_latency_seconds_bucket{script="b.sql",le="10"} 0
gbench_latency_seconds_bucket{script="b.sql",le="+Inf"} 0
gbench_latency_seconds_sum{script="b.sql"} 0
gbench_latency_seconds_count{script="b.sql"} 0
# HELP gbench_transactions_total Transactions by outcome: processed (successful), failed, skipped (--rate with --latency-limit).
# TYPE gbench_transactions_total counter
gbench_transactions_total{outcome="failed",script="a.sql"} 1
gbench_transactions_total{outcome="failed",script="b.sql"} 0
gbench_transactions_total{outcome="processed",script="a.sql"} 5
gbench_transactions_total{outcome="processed",script="b.sql"} 0
gbench_transactions_total{outcome="skipped",script="a.sql"} 0
gbench_transactions_total{outcome="skipped",script="b.sql"} 1
# HELP gbench_retries_total Retries (--max-tries) in all transactions.
# TYPE gbench_retries_total counter
gbench_retries_total{script="a.sql"} 2
gbench_retries_total{script="b.sql"} 0
# HELP gbench_command_failures_total Transactions that failed at a command (-r); class is the SQLSTATE or RESP error prefix, "" when unknown.
# TYPE gbench_command_failures_total counter
gbench_command_failures_total{class="",command="1",kind="set",line="1",script="a.sql"} 0
gbench_command_failures_total{class="",command="1",kind="resp",line="1",script="b.sql"} 0
gbench_command_failures_total{class="40001",command="2",kind="sql",line="2",script="a.sql"} 1
# HELP gbench_rate_target_tps This process's share of --rate, in transactions per second; 0 without.
# TYPE gbench_rate_target_tps gauge
gbench_rate_target_tps 33.5
# HELP gbench_start_time_seconds Start of the benchmark, Unix seconds on the run's timeline; 0 before it.
# TYPE gbench_start_time_seconds gauge
gbench_start_time_seconds 99
`
	err := testutil.CollectAndCompare((*collector)(e), strings.NewReader(want),
		"gbench_latency_seconds", "gbench_transactions_total", "gbench_retries_total",
		"gbench_command_failures_total", "gbench_rate_target_tps", "gbench_start_time_seconds")
	if err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount((*collector)(e), "gbench_command_latency_seconds"); n != 3 {
		t.Errorf("%d command latency histograms, want 3", n)
	}
}

// TestServe: the server answers /metrics in Prometheus' text format, every
// series labelled with the run and the worker, and Close waits for the
// scrape that reads the final figures.
func TestServe(t *testing.T) {
	run, block := fakeRun(t)
	e := New(run)
	srv, err := Serve("127.0.0.1:0", e)
	if err != nil {
		t.Fatal(err)
	}
	get := func() string {
		resp, err := http.Get("http://" + srv.Addr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	body := get()
	for _, want := range []string{
		`gbench_transactions_total{outcome="processed",run_id="r1",script="a.sql",worker="1"} 0`,
		`gbench_workers{run_id="r1",worker="1"} 3`,
		`go_goroutines{run_id="r1",worker="1"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	block.Total.Record(stats.OK, 100, 0, 1)
	block.Scripts[0].Record(stats.OK, 100, 0, 1)
	res := &engine.Result{Stats: block, Start: time.Unix(200, 0), Bench: 3 * time.Second}
	e.Finish(res)
	closed := make(chan error)
	go func() { closed <- srv.Close(time.Minute) }()
	select {
	case err := <-closed:
		t.Fatalf("closed before the final scrape: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if body := get(); !strings.Contains(body, `gbench_end_time_seconds{run_id="r1",worker="1"} 203`) ||
		!strings.Contains(body, `gbench_transactions_total{outcome="processed",run_id="r1",script="a.sql",worker="1"} 1`) {
		t.Errorf("final scrape:\n%s", body)
	}
	if err := <-closed; err != nil {
		t.Error(err)
	}
}
