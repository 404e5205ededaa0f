package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/run/fleet"
)

// runGbenchEnv runs gbench in-process with env as its whole environment.
func runGbenchEnv(env map[string]string, args ...string) outcome {
	var stdout, stderr lockedBuffer
	e := &Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: time.Now,
		Getenv: func(k string) string { return env[k] },
	}
	code := Run(e, args)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// TestFleetOptionErrors: worker settings that cannot split a run exactly,
// or start it together, are refused before anything connects.
func TestFleetOptionErrors(t *testing.T) {
	meta := filepath.Join(t.TempDir(), "meta.sql")
	if err := os.WriteFile(meta, []byte("\\set x 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		// Fewer threads than workers: some worker would have nothing to run.
		{nil, []string{"--worker", "2/4", "-c", "8", "-j", "2", "--run-id", "r"},
			"gbench: error: 4 workers need at least 4 threads (-j): the run's threads are dealt to the workers, so that together they run what one gbench with the same options runs; got -j 2\n"},
		// Fewer clients than workers.
		{nil, []string{"--worker", "0/3", "-c", "2", "-j", "2", "--run-id", "r"},
			"gbench: error: 2 clients (-c) cannot be split over 3 workers: every worker needs a thread of its own, with a client\n"},
		// No way to meet.
		{nil, []string{"--worker", "1/2", "-c", "2", "-j", "2"},
			"gbench: error: --worker 1/2 needs a way to start with the other workers: --run-id ID (or GBENCH_RUN_ID), the same for all, to meet them through the server, or --start-at TIME\n"},
		{nil, []string{"--worker", "2/2"},
			"gbench: error: invalid value \"2/2\" for option --worker: expected I/N, worker I (from 0) of N workers, like 0/4\n"},
		{nil, []string{"--worker=x"},
			"gbench: error: invalid value \"x\" for option --worker: expected I/N, worker I (from 0) of N workers, like 0/4\n"},
		{nil, []string{"--start-at", "tomorrow"},
			"gbench: error: invalid value \"tomorrow\" for option --start-at: expected an RFC 3339 time (2025-06-01T12:00:00Z) or Unix seconds (1748779200.5)\n"},
		{nil, []string{"-f", meta, "--metrics-addr", "9090"},
			"gbench: error: invalid value \"9090\" for option --metrics-addr: expected HOST:PORT, like :9090 or 127.0.0.1:9090\n"},
		{map[string]string{"GBENCH_WORKERS": "2"}, []string{"-f", meta, "-c", "2", "-j", "2"},
			"gbench: error: GBENCH_WORKERS is 2 but neither GBENCH_WORKER_INDEX nor JOB_COMPLETION_INDEX gives this worker's index\n"},
		{map[string]string{"GBENCH_WORKERS": "2", "JOB_COMPLETION_INDEX": "5"}, []string{"-f", meta, "-c", "2", "-j", "2"},
			"gbench: error: invalid value \"5\" of JOB_COMPLETION_INDEX: expected a worker index from 0 to 1\n"},
		{map[string]string{"GBENCH_WORKERS": "many"}, []string{"-f", meta},
			"gbench: error: invalid value \"many\" of GBENCH_WORKERS: expected the number of workers\n"},
		// Benchmarking options, not for -i.
		{nil, []string{"-i", "--worker", "0/2"},
			"gbench: error: some of the specified options cannot be used in initialization (-i) mode\n"},
	} {
		o := runGbenchEnv(c.env, c.args...)
		if o.code != exitUsage || o.stderr != c.want {
			t.Errorf("gbench %s (env %v): status %d\n%s\nwant\n%s", shellJoin(c.args), c.env, o.code, o.stderr, c.want)
		}
	}
}

// TestWorkersWithStartAt runs the two workers of a run without servers
// (a script of meta-commands only), started at a given time, one of them
// late: their results say which part each ran, the late one
// says it was late, and their merge prints the summary of the whole run
// and names the late worker. The options beat the environment.
func TestWorkersWithStartAt(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "meta.sql")
	if err := os.WriteFile(meta, []byte("\\set x random(1, 10)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(k int, start time.Time) []string {
		return []string{"-f", meta, "-c", "5", "-j", "2", "-t", "3", "--random-seed", "1",
			"--start-at", start.Format(time.RFC3339Nano), "--json", filepath.Join(dir, "w"+strconv.Itoa(k)+".json")}
	}
	env := map[string]string{"GBENCH_WORKERS": "2", "JOB_COMPLETION_INDEX": "1", "GBENCH_RUN_ID": "r"}
	// Worker 1 must be on time: the start is set ahead of now by a margin
	// that doubles each time worker 1 reports itself late, so a slow or
	// loaded machine makes the test longer, never wrong.
	var at time.Time
	for margin := 500 * time.Millisecond; ; margin *= 2 {
		at = time.Now().Add(margin).Truncate(time.Millisecond)
		if o := runGbenchEnv(env, args(1, at)...); o.code != 0 {
			t.Fatalf("worker 1: status %d\n%s", o.code, o.stderr)
		}
		if w := readJSON(t, filepath.Join(dir, "w1.json")).Worker; w == nil || !w.Start.Late || margin >= time.Minute {
			break
		}
	}
	// Worker 0 comes exactly 200 ms after the start, at least: late.
	time.Sleep(time.Until(at.Add(200 * time.Millisecond)))
	late := runGbenchEnv(env, append(args(0, at), "--worker", "0/2")...)
	if late.code != 0 {
		t.Fatalf("worker 0: status %d\n%s", late.code, late.stderr)
	}
	w0, w1 := readJSON(t, filepath.Join(dir, "w0.json")), readJSON(t, filepath.Join(dir, "w1.json"))
	if w := w1.Worker; w == nil || w.Index != 1 || w.Count != 2 || w.FirstThread != 1 || w.FirstClient != 3 ||
		w.RunClients != 5 || w.RunThreads != 2 || w.RunID != "r" || w.Start.Method != "start-at" || !w.Start.Planned.Equal(at) {
		t.Errorf("worker 1: %+v", w1.Worker)
	}
	if w1.Config.Clients != 2 || w1.Config.Threads != 1 || w1.Counters.Processed != 6 || !w1.Start.Equal(at) {
		t.Errorf("worker 1 ran %d clients, %d threads, %d transactions from %v", w1.Config.Clients, w1.Config.Threads, w1.Counters.Processed, w1.Start)
	}
	if w := w0.Worker; w == nil || w.Index != 0 || !w.Start.Late || w.Start.LateS < 0.2 ||
		!strings.Contains(late.stderr, "gbench: warning: this worker began ") {
		t.Errorf("worker 0: %+v\n%s", w0.Worker, late.stderr)
	}
	o := runGbench("merge", "-o", filepath.Join(dir, "m.json"), filepath.Join(dir, "w0.json"), filepath.Join(dir, "w1.json"))
	for _, want := range []string{
		"number of clients: 5\nnumber of threads: 2\n", "number of transactions per client: 3\n",
		"number of transactions actually processed: 15/15\n", "workers merged: 2 of 2 (0, 1)\n", "workers late: 0 (began more than 100 ms after the start)\n",
	} {
		if o.code != 0 || !strings.Contains(o.stdout, want) {
			t.Errorf("merge: status %d, no %q in\n%s%s", o.code, want, o.stdout, o.stderr)
		}
	}
}

// TestWorkersShareSeed: workers given no seed take their run id's, so
// their results merge; an explicit seed (option or PGBENCH_RANDOM_SEED)
// wins, and workers given different ones are refused by the merge. A log
// without a result (a worker that died) is merged around.
func TestWorkersShareSeed(t *testing.T) {
	dir := t.TempDir()
	meta := filepath.Join(dir, "meta.sql")
	if err := os.WriteFile(meta, []byte("\\set x random(1, 10)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(300 * time.Millisecond).Truncate(time.Millisecond).UTC()
	run := func(name string, k int, env map[string]string, extra ...string) *report.Result {
		t.Helper()
		full := map[string]string{"GBENCH_WORKERS": "2", "JOB_COMPLETION_INDEX": strconv.Itoa(k)}
		for key, v := range env {
			full[key] = v
		}
		path := filepath.Join(dir, name)
		args := append([]string{"-f", meta, "-c", "2", "-j", "2", "-t", "3", "--start-at", at.Format(time.RFC3339Nano), "--json", path}, extra...)
		if o := runGbenchEnv(full, args...); o.code != 0 {
			t.Fatalf("%s: status %d\n%s", name, o.code, o.stderr)
		}
		return readJSON(t, path)
	}
	runID := map[string]string{"GBENCH_RUN_ID": "seed-r"}
	a0, a1 := run("a0.json", 0, runID), run("a1.json", 1, runID)
	b0 := run("b0.json", 0, nil) // no run id: "start-at" and the time
	c0 := run("c0.json", 0, map[string]string{"GBENCH_RUN_ID": "seed-r", "PGBENCH_RANDOM_SEED": "7"})
	c1 := run("c1.json", 1, runID, "--random-seed", "8")
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"worker 0 of run seed-r", a0.Config.RandomSeed, fleet.Seed("seed-r")},
		{"worker 1 of run seed-r", a1.Config.RandomSeed, fleet.Seed("seed-r")},
		{"a worker given --start-at only", b0.Config.RandomSeed, fleet.Seed("start-at " + at.Format(time.RFC3339Nano))},
		{"PGBENCH_RANDOM_SEED=7", c0.Config.RandomSeed, 7},
		{"--random-seed 8", c1.Config.RandomSeed, 8},
	} {
		if c.got != c.want {
			t.Errorf("%s: seed %d, want %d", c.name, c.got, c.want)
		}
	}
	if o := runGbench("merge", "-o", filepath.Join(dir, "a.json"), filepath.Join(dir, "a0.json"), filepath.Join(dir, "a1.json")); o.code != 0 {
		t.Errorf("merge of the seedless workers: status %d\n%s", o.code, o.stderr)
	}
	// A pod that died leaves a log without a result: merged around, named missing.
	dead := filepath.Join(dir, "dead.log")
	if err := os.WriteFile(dead, []byte("gbench: setting random seed to 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := runGbench("merge", "-o", filepath.Join(dir, "d.json"), filepath.Join(dir, "a0.json"), dead)
	if want := "workers missing: 1: "; o.code != 2 || !strings.Contains(o.stdout, want) || !strings.Contains(o.stderr, "dead.log holds no gbench result") {
		t.Errorf("merge with a dead worker's log: status %d, want 2 and %q\n%s%s", o.code, want, o.stdout, o.stderr)
	}
	o = runGbench("merge", "-o", filepath.Join(dir, "c.json"), filepath.Join(dir, "c0.json"), filepath.Join(dir, "c1.json"))
	if want := "its config.random_seed differs from the others'"; o.code != 1 || !strings.Contains(o.stderr, want) {
		t.Errorf("merge of workers given seeds 7 and 8: status %d, want 1 and %q\n%s", o.code, want, o.stderr)
	}
}
