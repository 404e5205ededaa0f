package matrix

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// TestWarmupSoak opens and warms GBENCH_WARM_SOAK_CONNS connections (256)
// GBENCH_WARM_SOAK times in a sandbox, the way every sample of the matrix
// does: each run opens every connection through the warming connector,
// runs for a moment and closes them, alternating the SQL paths. It is the
// reproducer of the warm-up hang; bench/warmup-soak.sh runs it long, with
// this process starved of CPU (GBENCH_WARM_SOAK_CGROUP) while the servers
// are not. Each warm-up has a 60 s deadline: a lost reply fails the run.
func TestWarmupSoak(t *testing.T) {
	runs, _ := strconv.Atoi(os.Getenv("GBENCH_WARM_SOAK"))
	if runs <= 0 {
		t.Skip("set GBENCH_WARM_SOAK=N to open and warm the connections N times")
	}
	conns := 256
	if n, err := strconv.Atoi(os.Getenv("GBENCH_WARM_SOAK_CONNS")); err == nil && n > 0 {
		conns = n
	}
	ctx := context.Background()
	sb, err := sandbox.Start(ctx, sandbox.Options{Postgres: true, Redis: true, MaxConnections: conns + 20})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	if dir := os.Getenv("GBENCH_WARM_SOAK_CGROUP"); dir != "" {
		// Starve this process (not the servers, started already) of CPU, as
		// a loaded machine does: the condition of the hang.
		if err := os.WriteFile(dir+"/cgroup.procs", []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pg, err := pgsql.ParseConfig(sb.PostgresConnString())
	if err != nil {
		t.Fatal(err)
	}
	pg.SetFallbackApplicationName("gbench")
	setup, err := pg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close()
	if err := workloads.Load(ctx, setup, nil, workloads.Options{}); err != nil {
		t.Fatal(err)
	}
	r := testRunner(pg)
	paths := sqlPaths(t)
	for i := range runs {
		p := paths[i%len(paths)]
		keys := []int{1, 16, 64}[i/len(paths)%3]
		cfg, err := r.engineConfig(&slot{path: &p, keys: keys, conns: conns, seed: uint64(i)}, 100*time.Millisecond, 0)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res, err := engine.Run(ctx, cfg)
		if err != nil {
			t.Fatalf("run %d (%s, %d keys, %d connections) after %v: %v", i+1, p.Name, keys, conns, time.Since(start).Round(time.Millisecond), err)
		}
		if res.Aborted > 0 {
			t.Fatalf("run %d: %d clients aborted", i+1, res.Aborted)
		}
		t.Logf("run %d: %s %d keys: connected %d in %v", i+1, p.Name, keys, conns, res.ConnElapsed.Round(time.Millisecond))
	}
}

// sqlPaths returns the matrix's SQL paths.
func sqlPaths(t *testing.T) []Path {
	var out []Path
	for _, p := range ReadPaths() {
		if !p.hasRESP() {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatal("no SQL path")
	}
	return out
}

// testRunner is a runner of the SQL read paths on pg, for tests that
// drive engineConfig themselves.
func testRunner(pg *pgsql.Config) *runner {
	r := &runner{cfg: Config{PG: pg, Threads: 2}, programs: map[progKey]*script.Program{}, byPath: map[string]pathServers{},
		data: workloads.Dataset{Items: workloads.DefaultItems}}
	for _, p := range ReadPaths() {
		r.byPath[p.Name] = pathServers{pg: &server{name: "postgres", pgCfg: pg, plan: true}}
	}
	return r
}
