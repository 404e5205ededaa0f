package engine_test

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/script"
)

func TestShardThreads(t *testing.T) {
	for _, c := range []struct {
		shard    engine.Shard
		threads  int
		from, to int
		err      string
	}{
		{engine.Shard{}, 3, 0, 3, ""},                           // the whole run
		{engine.Shard{Index: 0, Count: 1}, 3, 0, 3, ""},         // one worker is the whole run
		{engine.Shard{Index: 0, Count: 2}, 5, 0, 3, ""},         // the first workers get one more
		{engine.Shard{Index: 1, Count: 2}, 5, 3, 5, ""},         //
		{engine.Shard{Index: 3, Count: 4}, 4, 3, 4, ""},         // one thread each
		{engine.Shard{Index: 2, Count: 3}, 9, 6, 9, ""},         // even split
		{engine.Shard{Index: 1, Count: 4}, 2, 0, 0, "at least"}, // fewer threads than workers
		{engine.Shard{Index: 4, Count: 4}, 8, 0, 0, "not in 0..3"},
		{engine.Shard{Index: -1, Count: 4}, 8, 0, 0, "not in 0..3"},
	} {
		err := c.shard.Check(c.threads)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v of %d threads: error %v, want %q", c.shard, c.threads, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v of %d threads: %v", c.shard, c.threads, err)
		}
		if from, to := c.shard.Threads(c.threads); from != c.from || to != c.to {
			t.Errorf("%+v of %d threads: [%d, %d), want [%d, %d)", c.shard, c.threads, from, to, c.from, c.to)
		}
	}
}

// memLog keeps every log entry by thread, for tests.
type memLog struct {
	mu      sync.Mutex
	entries map[int][]engine.LogEntry
}

func (m *memLog) Open(thread int) (engine.TxLog, error) {
	return &memThreadLog{m: m, thread: thread}, nil
}

type memThreadLog struct {
	m      *memLog
	thread int
}

func (l *memThreadLog) Transaction(e engine.LogEntry) error {
	l.m.mu.Lock()
	defer l.m.mu.Unlock()
	if l.m.entries == nil {
		l.m.entries = map[int][]engine.LogEntry{}
	}
	l.m.entries[l.thread] = append(l.m.entries[l.thread], e)
	return nil
}

func (l *memThreadLog) Close(time.Time) error { return nil }

// shardRun runs a script without server commands as one shard of a run;
// it returns the result, what debug() printed, and the log.
func shardRun(t *testing.T, text string, shard engine.Shard, edit func(*engine.Config)) (*engine.Result, []string, *memLog) {
	t.Helper()
	s, err := script.Parse("shard.sql", text, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	log := &memLog{}
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 7, Threads: 4, Transactions: 6, MaxTries: 1,
		Seed: 42, Scale: 1, Stderr: &stderr, Shard: shard, Log: log}
	if edit != nil {
		edit(cfg)
	}
	res, err := engine.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return res, lines, log
}

// TestShardsRunWhatOneRunRuns: three workers of a 7-client, 4-thread run
// together run exactly the clients one process runs, each client with the
// random sequence it has there (debug() prints the client id and each
// value drawn), and each worker only its own threads' clients, under their
// global ids.
func TestShardsRunWhatOneRunRuns(t *testing.T) {
	const text = "\\set r random(1, 1000000000)\n\\set x debug(:client_id * 10000000000 + :r)\n"
	whole, want, _ := shardRun(t, text, engine.Shard{}, nil)
	if whole.Stats.Total.Cnt != 7*6 {
		t.Fatalf("one run: %d transactions", whole.Stats.Total.Cnt)
	}
	var got []string
	var threads int
	clientsOf := [][]int{{0, 1, 2, 3}, {4, 5}, {6}} // threads 0-1, 2, 3: clients 2,2,2,1
	for k := 0; k < 3; k++ {
		res, lines, _ := shardRun(t, text, engine.Shard{Index: k, Count: 3}, nil)
		threads += res.Threads
		for _, l := range lines {
			id := clientOf(t, l)
			if !slices.Contains(clientsOf[k], id) {
				t.Errorf("worker %d ran client %d: %s", k, id, l)
			}
		}
		if n := res.Stats.Total.Cnt; n != int64(6*len(clientsOf[k])) {
			t.Errorf("worker %d: %d transactions, want %d", k, n, 6*len(clientsOf[k]))
		}
		got = append(got, lines...)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("the workers drew\n%s\none run drew\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if threads != 4 {
		t.Errorf("the workers ran %d threads, want 4", threads)
	}
}

// clientOf reads the client id from a debug line "... int N".
func clientOf(t *testing.T, line string) int {
	t.Helper()
	i := strings.LastIndexByte(line, ' ')
	var v int64
	for _, c := range line[i+1:] {
		if c < '0' || c > '9' {
			t.Fatalf("not a debug line: %q", line)
		}
		v = v*10 + int64(c-'0')
	}
	return int(v / 10000000000)
}

// TestShardsKeepTheRateSchedules: under --rate each thread keeps the
// Poisson schedule it has in one run, on one worker or another: the
// scheduled starts of each thread's transactions (end minus latency, from
// the log) are the same, to the microsecond the log rounds to.
func TestShardsKeepTheRateSchedules(t *testing.T) {
	rate := func(c *engine.Config) { c.Rate = 2000 }
	_, _, whole := shardRun(t, "\\set x 1\n", engine.Shard{}, rate)
	want := schedules(whole)
	got := map[int][]int64{}
	for k := 0; k < 2; k++ {
		_, _, log := shardRun(t, "\\set x 1\n", engine.Shard{Index: k, Count: 2}, rate)
		for th, s := range schedules(log) {
			if _, dup := got[th]; dup {
				t.Errorf("thread %d ran on two workers", th)
			}
			got[th] = s
		}
	}
	if len(got) != 4 || len(want) != 4 {
		t.Fatalf("threads: workers %d, one run %d", len(got), len(want))
	}
	for th := range want {
		w, g := want[th], got[th]
		if len(w) != len(g) {
			t.Errorf("thread %d: %d transactions on its worker, %d in one run", th, len(g), len(w))
			continue
		}
		for i := range w {
			if d := g[i] - w[i]; d < -2 || d > 2 {
				t.Errorf("thread %d, slot %d: scheduled at %d us on its worker, %d us in one run", th, i, g[i], w[i])
				break
			}
		}
	}
}

// schedules returns each thread's scheduled starts in microseconds since
// its first, sorted.
func schedules(l *memLog) map[int][]int64 {
	out := map[int][]int64{}
	for th, es := range l.entries {
		var s []int64
		for _, e := range es {
			s = append(s, e.Wall.UnixMicro()-e.Latency)
		}
		slices.Sort(s)
		for i := len(s) - 1; i >= 0; i-- {
			s[i] -= s[0]
		}
		out[th] = s
	}
	return out
}

// TestPlannedStart: the clock starts at the plan's instant, and every time
// the run gives is on the plan's timeline: the result's start is the
// plan's Wall, and no transaction ends before it.
func TestPlannedStart(t *testing.T) {
	wall := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	var at time.Time
	res, _, log := shardRun(t, "\\set x 1\n", engine.Shard{}, func(c *engine.Config) {
		c.Start = func(context.Context) (engine.StartPlan, error) {
			at = time.Now().Add(100 * time.Millisecond)
			return engine.StartPlan{At: at, Wall: wall}, nil
		}
	})
	if !res.Start.Equal(wall) {
		t.Errorf("start %v, want the plan's %v", res.Start, wall)
	}
	if res.Late < 0 {
		t.Errorf("late by %v", res.Late)
	}
	for _, es := range log.entries {
		for _, e := range es {
			if e.Wall.Before(wall) {
				t.Errorf("a transaction ended at %v, before the start %v", e.Wall, wall)
			}
		}
	}
}

// TestLateStartKeepsTheOrigin: a plan already a second past starts at
// once with the plan's instant as origin, so its schedule is the common
// one and the lateness shows, in Late and in the schedule lag.
func TestLateStartKeepsTheOrigin(t *testing.T) {
	res, _, _ := shardRun(t, "\\set x 1\n", engine.Shard{}, func(c *engine.Config) {
		c.Rate = 2000
		c.Start = func(context.Context) (engine.StartPlan, error) {
			return engine.StartPlan{At: time.Now().Add(-time.Second)}, nil
		}
	})
	if res.Late < time.Second {
		t.Errorf("late by %v, want at least a second", res.Late)
	}
	if lag := res.Stats.Total.Lag.Max; lag < 900_000 {
		t.Errorf("largest schedule lag %.0f us, want the second the start was missed by", lag)
	}
}

// TestStartError: a failed plan ends the run before it starts.
func TestStartError(t *testing.T) {
	s, _ := script.Parse("t.sql", "\\set x 1\n", 1)
	p, _ := script.Compile([]*script.Script{s}, script.Simple, nil)
	boom := errors.New("the other workers did not come")
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 2, Threads: 1, Transactions: 1, MaxTries: 1, Seed: 1,
		Scale: 1, Start: func(context.Context) (engine.StartPlan, error) { return engine.StartPlan{}, boom }}
	if _, err := engine.Run(context.Background(), cfg); !errors.Is(err, boom) {
		t.Errorf("run: %v, want %v", err, boom)
	}
}
