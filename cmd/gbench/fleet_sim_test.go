package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/script"
)

// worker is a gbench process started as a pod of an Indexed Job starts
// it: the same arguments for all, its index in JOB_COMPLETION_INDEX, the
// count and run id in GBENCH_WORKERS and GBENCH_RUN_ID.
type worker struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func startWorker(t *testing.T, g *installedGbench, index, count int, runID string, args ...string) *worker {
	t.Helper()
	w := &worker{cmd: exec.Command(g.bin, args...)}
	w.cmd.Dir, w.cmd.Stdout, w.cmd.Stderr = g.dir, &w.stdout, &w.stderr
	w.cmd.Env = append(os.Environ(), "GBENCH_WORKERS="+strconv.Itoa(count),
		"JOB_COMPLETION_INDEX="+strconv.Itoa(index), "GBENCH_RUN_ID="+runID)
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if w.cmd.ProcessState == nil {
			w.cmd.Process.Kill()
			w.cmd.Wait()
		}
	})
	return w
}

// wait waits for the worker, at most two minutes, and expects status 0.
func (w *worker) wait(t *testing.T, index int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("worker %d: %v\n%s\n%s", index, err, w.stdout.String(), w.stderr.String())
		}
	case <-time.After(2 * time.Minute):
		w.cmd.Process.Kill()
		t.Fatalf("worker %d did not finish\n%s", index, w.stderr.String())
	}
}

// TestFleetSimulation runs one run over three local worker processes
// against one throwaway server, with the environment an Indexed Job gives
// its pods, merges their results with gbench merge, and checks what
// docs/distributed.md promises: the workers together do what one process
// does with the same options, they start together, and the merge is
// exact.
func TestFleetSimulation(t *testing.T) {
	sb := startSandbox(t)
	g := buildGbench(t)
	db := sb.PostgresConnString()
	sandboxSQL(t, db, "CREATE TABLE fleet_a (client int, r bigint); CREATE TABLE fleet_b (client int, r bigint)")
	write := func(name, text string) string {
		path := filepath.Join(g.dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ins := write("ins.sql", "\\set r random(1, 1000000000)\nINSERT INTO :tab VALUES (:client_id, :r);\n")
	sel := write("sel.sql", "SELECT 1;\n")

	t.Run("transactions: the workers run what one process runs", func(t *testing.T) {
		fleetTransactions(t, g, db, ins)
	})
	t.Run("duration under --rate: a common start, an exact merge", func(t *testing.T) {
		fleetRate(t, g, db, sel)
	})
}

// fleetTransactions runs -t 5 over 3 workers and in one process, each
// transaction inserting its client id and a random number: the rows are
// the same, so each client ran under its own id with its own random
// sequence, on one worker or in one process. The workers write their
// results into their logs (--json -), as pods do, and gbench merge reads
// the logs put together; its summary has the single run's lines.
func fleetTransactions(t *testing.T, g *installedGbench, db, ins string) {
	args := []string{"-n", "-f", ins, "-c", "12", "-j", "3", "-t", "5", "--random-seed", "9"}
	var logs bytes.Buffer
	var ws []*worker
	for k := range 3 {
		ws = append(ws, startWorker(t, g, k, 3, "sim-t", append(args, "-D", "tab=fleet_a", "--json", "-", db)...))
	}
	for k, w := range ws {
		w.wait(t, k)
		logs.Write(w.stderr.Bytes()) // kubectl logs mixes both streams
		logs.Write(w.stdout.Bytes())
	}
	single := g.ok(append(args, "-D", "tab=fleet_b", db)...)
	rows := func(table string) string {
		var b strings.Builder
		for _, r := range sandboxSQL(t, db, "SELECT client, r FROM "+table+" ORDER BY client, r") {
			fmt.Fprintf(&b, "%s %s\n", r[0], r[1])
		}
		return b.String()
	}
	a, b := rows("fleet_a"), rows("fleet_b")
	if strings.Count(a, "\n") != 60 || a != b {
		t.Errorf("the workers inserted\n%s\none process inserted\n%s", a, b)
	}
	podLogs := filepath.Join(g.dir, "pods.log")
	if err := os.WriteFile(podLogs, logs.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	merged := filepath.Join(g.dir, "t.json")
	out := g.ok("merge", "-o", merged, podLogs)
	single.stdout = single.stdout[strings.IndexByte(single.stdout, '\n')+1:] // the banner names the server
	sameSummary(t, single.stdout, out.stdout, []string{
		"transaction type: ", "scaling factor: ", "query mode: ", "number of clients: 12\n", "number of threads: 3\n",
		"maximum number of tries: ", "number of transactions per client: 5\n",
		"number of transactions actually processed: 60/60\n", "number of failed transactions: 0 (0.000%)\n",
	})
	if !strings.Contains(out.stdout, "workers merged: 3 of 3 (0, 1, 2)\n") {
		t.Errorf("merge summary:\n%s", out.stdout)
	}
}

// sameSummary checks that the merge's summary has the single run's lines
// in the same order, with the same words (the figures may differ), and
// the same lines where the figures are fixed by the options.
func sameSummary(t *testing.T, single, merged string, fixed []string) {
	t.Helper()
	label := func(l string) string {
		if i := strings.IndexAny(l, ":="); i >= 0 {
			return l[:i]
		}
		return l
	}
	sl, ml := strings.Split(strings.TrimSuffix(single, "\n"), "\n"), strings.Split(merged, "\n")
	if len(ml) < len(sl) {
		t.Fatalf("merge summary shorter than the run's:\n%s\nrun's:\n%s", merged, single)
	}
	for i := range sl {
		if label(sl[i]) != label(ml[i]) {
			t.Errorf("line %d: the merge says %q, one run %q", i+1, ml[i], sl[i])
		}
	}
	for _, f := range fixed {
		if !strings.Contains(merged, f) || strings.HasSuffix(f, "\n") && !strings.Contains(single, f) {
			t.Errorf("no %q in both\nmerge:\n%s\nrun:\n%s", f, merged, single)
		}
	}
}

// Part B's run: 12 clients, 3 threads, 300 tps for 3 s.
const (
	simClients = 12
	simThreads = 3
	simRate    = 300.0
	simSeconds = 3
	simSeed    = 11
	// simStagger separates the workers' launches: without the rendezvous
	// their first transactions would be at least 2 stagger apart.
	simStagger = time.Second
)

// fleetRate launches the workers of a -T --rate run a second apart and
// checks the start, the schedule, the logs and the merge.
func fleetRate(t *testing.T, g *installedGbench, db, sel string) {
	logDir := t.TempDir()
	var ws []*worker
	for k := range 3 {
		if k > 0 {
			time.Sleep(simStagger)
		}
		ws = append(ws, startWorker(t, g, k, 3, "sim-rate", "-n", "-f", sel, "-c", strconv.Itoa(simClients),
			"-j", strconv.Itoa(simThreads), "-T", strconv.Itoa(simSeconds), "-R", fmt.Sprint(simRate), "-P", "1",
			"--random-seed", strconv.Itoa(simSeed), "-l", "--log-prefix", filepath.Join(logDir, "log"),
			"--json", filepath.Join(g.dir, fmt.Sprintf("w%d.json", k)), db))
	}
	var parts []*report.Result
	var files []string
	for k, w := range ws {
		w.wait(t, k)
		files = append(files, filepath.Join(g.dir, fmt.Sprintf("w%d.json", k)))
		parts = append(parts, readJSON(t, files[k]))
		t.Logf("worker %d: %s", k, lastLine(w.stderr.String()))
	}
	merged := filepath.Join(g.dir, "m.json")
	out := g.ok(append([]string{"merge", "-o", merged}, files...)...)
	m := readJSON(t, merged)
	t.Logf("merge:\n%s", out.stdout)

	checkMergeExact(t, m, parts)
	checkSchedule(t, m)
	var pids []int
	for _, w := range ws {
		pids = append(pids, w.cmd.Process.Pid)
	}
	checkStart(t, parts, pids, logDir)
	checkRefusals(t, g, files)
}

func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// checkMergeExact: the merged counts are the sums of the parts', its
// histogram the parts' histograms merged, its intervals the parts'
// intervals of the same boundary added up, each covering every worker.
func checkMergeExact(t *testing.T, m *report.Result, parts []*report.Result) {
	t.Helper()
	var processed int64
	h := stats.NewHist()
	for _, p := range parts {
		processed += p.Counters.Processed
		ph, err := p.Latency.Hist()
		if err != nil {
			t.Fatal(err)
		}
		h.Merge(ph)
	}
	mh, err := m.Latency.Hist()
	if err != nil {
		t.Fatal(err)
	}
	if m.Counters.Processed != processed || !mh.Raw().Equals(h.Raw()) {
		t.Errorf("merged %d transactions (histogram equal: %v), the parts %d", m.Counters.Processed, mh.Raw().Equals(h.Raw()), processed)
	}
	if m.Fleet == nil || len(m.Fleet.Merged) != 3 || len(m.Fleet.Missing) != 0 || m.Config.Clients != simClients || m.Config.Threads != simThreads {
		t.Errorf("fleet %+v, clients %d, threads %d", m.Fleet, m.Config.Clients, m.Config.Threads)
	}
	if len(m.Intervals) != simSeconds {
		t.Fatalf("%d merged intervals, want %d", len(m.Intervals), simSeconds)
	}
	for i, in := range m.Intervals {
		var n int64
		for _, p := range parts {
			for _, pi := range p.Intervals {
				if pi.Index == in.Index {
					n += pi.Counters.Processed
				}
			}
		}
		if in.Index != i+1 || in.Runs != 3 || in.Counters.Processed != n {
			t.Errorf("merged interval %d: index %d, %d workers, %d transactions; the parts' add up to %d", i, in.Index, in.Runs, in.Counters.Processed, n)
		}
	}
}

// checkSchedule compares the merged count with the seeded schedules of
// the run's three threads, replayed as the engine draws them (every
// client's seed, :default_seed, then per thread: script choice, throttle,
// sampling): every slot up to the end runs, except those near the end
// that no client takes before it; a slot is taken at most the largest lag
// after it, so every slot up to the end minus the largest lag runs (see
// TestRateFollowsTheSeededSchedule). The same count is also within 5
// standard deviations of a Poisson count at the target rate, sqrt(rate*T).
func checkSchedule(t *testing.T, m *report.Result) {
	t.Helper()
	d := simSeconds * time.Second
	maxLag := time.Duration(m.Lag.MaxUs) * time.Microsecond
	most, least := fleetSlots(d), fleetSlots(d-maxLag-time.Millisecond)
	got := m.Counters.Processed
	t.Logf("%d transactions; the seeded schedules: %d slots up to %v, %d up to it minus the largest lag %v", got, most, d, least, maxLag)
	if got > most || got < least {
		t.Errorf("%d transactions outside [%d, %d]", got, least, most)
	}
	mean := simRate * d.Seconds()
	if sd := math.Sqrt(mean); math.Abs(float64(got)-mean) > 5*sd {
		t.Errorf("%d transactions at %v tps for %v: more than 5 sd (%.0f) from %.0f", got, simRate, d, sd, mean)
	}
}

// fleetSlots counts the slots the run's threads schedule up to d.
func fleetSlots(d time.Duration) int64 {
	var base script.PRNG
	base.Seed(simSeed)
	for range simClients + 1 { // the clients' seeds, :default_seed
		base.Uint64()
	}
	delayUs := 1e6 / simRate * simThreads
	var n int64
	for range simThreads {
		base.Uint64() // script choice
		var throttle script.PRNG
		throttle.Seed(base.Uint64())
		base.Uint64() // sampling
		for at := int64(0); ; n++ {
			if at += throttle.Poisson(delayUs) * 1000; at > int64(d) {
				break
			}
		}
	}
	return n
}

// checkStart reads the -l logs: each global thread has its file, named as
// one process names it, with its own clients; and the workers' first
// transactions began within simStagger of one another, though they were
// launched 2 simStagger apart, and not before the planned start. The bound
// is what is left of the stagger after the rendezvous: the OS's delay in
// waking a sleeping process, well under a second even on a loaded 2-core
// machine (CFS gives a woken task the CPU within a few scheduling periods
// of a few milliseconds each).
func checkStart(t *testing.T, parts []*report.Result, pids []int, logDir string) {
	t.Helper()
	planned := parts[0].Worker.Start.Planned
	var firsts []time.Time
	for k, p := range parts {
		if !p.Worker.Start.Planned.Equal(planned) || !p.Start.Equal(planned) {
			t.Errorf("worker %d: planned start %v, start %v; worker 0's %v", k, p.Worker.Start.Planned, p.Start, planned)
		}
		pid := strconv.Itoa(pids[k])
		name := filepath.Join(logDir, "log."+pid)
		if k > 0 {
			name += "." + strconv.Itoa(k) // worker k runs thread k
		}
		first, clients := readTxLog(t, name)
		want := []int{4 * k, 4*k + 1, 4*k + 2, 4*k + 3}
		if !slices.Equal(clients, want) {
			t.Errorf("%s: clients %v, want thread %d's %v", name, clients, k, want)
		}
		if first.Before(planned.Add(-time.Millisecond)) {
			t.Errorf("worker %d began at %v, before the planned start %v", k, first, planned)
		}
		t.Logf("worker %d: first transaction %v after the planned start (late by %.3f ms by its own clock)", k, first.Sub(planned), p.Worker.Start.LateS*1000)
		firsts = append(firsts, first)
	}
	lo, hi := slices.MinFunc(firsts, time.Time.Compare), slices.MaxFunc(firsts, time.Time.Compare)
	if spread := hi.Sub(lo); spread >= simStagger {
		t.Errorf("the workers' first transactions began %v apart, launched %v apart", spread, 2*simStagger)
	}
}

// readTxLog reads a per-transaction log under --rate: the earliest actual
// start (end - latency + lag) and the client ids.
func readTxLog(t *testing.T, name string) (time.Time, []int) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var first time.Time
	seen := map[int]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 7 {
			t.Fatalf("%s: line %q", name, line)
		}
		n := make([]int64, len(f))
		for i, s := range f {
			n[i], _ = strconv.ParseInt(s, 10, 64)
		}
		seen[int(n[0])] = true
		start := time.UnixMicro(n[4]*1_000_000 + n[5] - n[2] + n[6])
		if first.IsZero() || start.Before(first) {
			first = start
		}
	}
	var clients []int
	for c := range seen {
		clients = append(clients, c)
	}
	slices.Sort(clients)
	return first, clients
}

// checkRefusals: gbench merge refuses what is not the parts of one run and
// says which workers are missing.
func checkRefusals(t *testing.T, g *installedGbench, files []string) {
	t.Helper()
	o := g.run("merge", files[0], files[1], files[1])
	if o.code != 1 || !strings.Contains(o.stderr, "worker 1 is also in input 2 (the same part twice)") {
		t.Errorf("a part twice: status %d\n%s", o.code, o.stderr)
	}
	o = g.run("merge", "-o", filepath.Join(g.dir, "part.json"), files[0], files[2])
	if o.code != 2 || !strings.Contains(o.stderr, "1 of the run's 3 workers are missing (1)") ||
		!strings.Contains(o.stdout, "workers merged: 2 of 3 (0, 2)\nworkers missing: 1:") {
		t.Errorf("a worker missing: status %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	edited := func(name string, edit func(*report.Result)) string {
		r := readJSON(t, files[1])
		edit(r)
		path := filepath.Join(g.dir, name)
		if err := writeFile(path, r.Write); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, c := range []struct {
		file, want string
	}{
		{edited("another.json", func(r *report.Result) { r.Worker.RunID = "another" }), `it is a worker of run "another", not of run "sim-rate"`},
		{edited("alone.json", func(r *report.Result) { r.Worker = nil }), "it is not a worker's result (gbench --worker), the others are"},
		{edited("seed.json", func(r *report.Result) { r.Config.RandomSeed++ }), "its config.random_seed differs from the others'"},
	} {
		o := g.run("merge", files[0], c.file)
		if o.code != 1 || !strings.Contains(o.stderr, c.file+" cannot be merged with "+files[0]+": "+c.want) {
			t.Errorf("merge with %s: status %d\n%s", filepath.Base(c.file), o.code, o.stderr)
		}
	}
}
