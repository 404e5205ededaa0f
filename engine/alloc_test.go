package engine_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/output/metrics"
	"github.com/gbench/gbench/script"
)

// mallocsFor runs n transactions per client and returns the heap
// allocations the whole run made.
func mallocsFor(t testing.TB, src string, mode script.Mode, n int64, conn ...string) uint64 {
	return mallocsWith(t, src, mode, n, func(*engine.Config) {}, conn...)
}

// mallocsWith is mallocsFor with more settings.
func mallocsWith(t testing.TB, src string, mode script.Mode, n int64, set func(*engine.Config), conn ...string) uint64 {
	pg := testPG(t, conn...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, stderr := runScript(t, pg, src, mode, func(c *engine.Config) {
		c.Clients, c.Threads, c.Transactions, c.PerCommand = 2, 1, n, true
		set(c)
	})
	runtime.ReadMemStats(&after)
	if res.Aborted != 0 {
		t.Fatalf("aborted:\n%s", stderr)
	}
	return after.Mallocs - before.Mallocs
}

// TestHotPathAllocatesNothing compares a run of 4000 transactions with a
// run of 2000: setup costs the same, so the difference is what the extra
// transactions allocated, which must be (almost) nothing. Over TLS,
// crypto/tls itself allocates a small reader per record read; that is
// reported, not asserted.
func TestHotPathAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector (.ci/test.sh runs this test so)")
	}
	src := "\\set aid random(1, 100000)\n\\set keys random_keys(1, 1000, 8)\nSELECT :aid, cardinality(:keys);\n"
	for _, mode := range modes {
		small := mallocsFor(t, src, mode, 2000, "sslmode=disable")
		large := mallocsFor(t, src, mode, 4000, "sslmode=disable")
		perTxn := (float64(large) - float64(small)) / 4000
		t.Logf("%s: %d vs %d allocations: %.4f per transaction", mode, small, large, perTxn)
		if perTxn > 0.01 {
			t.Errorf("%s: %.4f allocations per transaction in steady state", mode, perTxn)
		}
	}
	// --reconnect, --io-timeout and --continue-on-error add nothing per
	// transaction while the server is up.
	faults := func(c *engine.Config) {
		c.Reconnect = engine.Reconnect{Enabled: true, Delay: time.Millisecond, MaxDelay: time.Second}
		c.IOTimeout, c.ContinueOnError = 5*time.Second, true
	}
	small := mallocsWith(t, src, script.Prepared, 2000, faults, "sslmode=disable")
	large := mallocsWith(t, src, script.Prepared, 4000, faults, "sslmode=disable")
	if perTxn := (float64(large) - float64(small)) / 4000; perTxn > 0.01 {
		t.Errorf("with --reconnect and --io-timeout: %.4f allocations per transaction in steady state", perTxn)
	} else {
		t.Logf("with --reconnect and --io-timeout: %.4f allocations per transaction", perTxn)
	}
	small = mallocsFor(t, src, script.Prepared, 2000, "sslmode=require")
	large = mallocsFor(t, src, script.Prepared, 4000, "sslmode=require")
	t.Logf("prepared over TLS: %.4f allocations per transaction (crypto/tls)", (float64(large)-float64(small))/4000)
}

// TestHotPathAllocatesNothingWithMetrics: with --metrics-addr's exporter
// fed at 20 ticks a second, the transactions still allocate nothing. Runs
// of 1000 and 8000 transactions at 500 and 4000 tps (2 s each) have the
// same ticks, so the difference of their allocations is what the extra
// 7000 transactions allocated; what
// the ticks allocate (a timer, the hand-over of the threads' blocks) is
// the same in both. That much is not exactly the same from run to run (up
// to about 25 allocations either way were seen, over the portable
// transport): 7000 transactions put the bound of 0.01 per transaction (70)
// well above that noise, where 2000 (20) did not. A short run first takes what only the first run
// allocates.
func TestHotPathAllocatesNothingWithMetrics(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector (.ci/test.sh runs this test so)")
	}
	pg := testPG(t, "sslmode=disable")
	src := "\\set aid random(1, 100000)\nSELECT :aid;\n"
	run := func(rate float64, txns int64) (uint64, int64) {
		var before, after runtime.MemStats
		var e *metrics.Exporter
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, stderr := runScript(t, pg, src, script.Prepared, func(c *engine.Config) {
			c.Clients, c.Threads, c.Transactions, c.TotalTransactions, c.Duration, c.Rate, c.PerCommand = 4, 2, 0, txns, 0, rate, true
			e = metrics.New(metrics.Run{Config: c, Clients: 4, Threads: 2, Rate: rate})
			c.Tick, c.OnProgress = 50*time.Millisecond, e.Update
		})
		runtime.ReadMemStats(&after)
		if res.Aborted != 0 {
			t.Fatalf("aborted:\n%s", stderr)
		}
		return after.Mallocs - before.Mallocs, res.Stats.Total.Cnt
	}
	// The runs end after a number of transactions, not a time, so that
	// they differ by 7000 on any machine: at these rates they last 2 s
	// each (as many ticks in both) where the machine keeps up; one that
	// does not only stretches the larger run, whose extra ticks allocate
	// nothing in steady state either.
	run(500, 250) // warm-up: what the first run alone allocates
	small, n1 := run(500, 1000)
	large, n2 := run(4000, 8000)
	perTxn := (float64(large) - float64(small)) / float64(n2-n1)
	t.Logf("%d allocations for %d transactions, %d for %d: %.4f per transaction", small, n1, large, n2, perTxn)
	if n2-n1 != 7000 {
		t.Fatalf("the runs made %d and %d transactions, want 1000 and 8000", n1, n2)
	}
	if perTxn > 0.01 {
		t.Errorf("%.4f allocations per transaction in steady state with metrics", perTxn)
	}
}
