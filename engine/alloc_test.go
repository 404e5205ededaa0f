package engine_test

import (
	"runtime"
	"testing"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/script"
)

// mallocsFor runs n transactions per client and returns the heap
// allocations the whole run made.
func mallocsFor(t testing.TB, src string, mode script.Mode, n int64, conn ...string) uint64 {
	pg := testPG(t, conn...)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, stderr := runScript(t, pg, src, mode, func(c *engine.Config) {
		c.Clients, c.Threads, c.Transactions, c.PerCommand = 2, 1, n, true
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
	small := mallocsFor(t, src, script.Prepared, 2000, "sslmode=require")
	large := mallocsFor(t, src, script.Prepared, 4000, "sslmode=require")
	t.Logf("prepared over TLS: %.4f allocations per transaction (crypto/tls)", (float64(large)-float64(small))/4000)
}
