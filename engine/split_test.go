package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
)

// splitKeys are keys of as many slots as keys (checked), in an order
// that is not the slots'.
var splitKeys = []string{"s:16", "s:3", "s:9", "s:1", "s:12", "s:7", "s:14", "s:2", "s:5", "s:11", "s:8", "s:15", "s:4", "s:10", "s:6", "s:13"}

// slotsOf returns the number of distinct slots of keys.
func slotsOf(keys []string) int {
	seen := map[uint16]bool{}
	for _, k := range keys {
		seen[resp.Slot([]byte(k))] = true
	}
	return len(seen)
}

// TestClusterSplit runs multi-key commands whose keys span slots under
// split=slot: MSET writes each key its number, MGET reads them back in
// the command's order into \gset variables, EXISTS and DEL add their
// parts' counts, and the masters' commandstats show one part per slot.
func TestClusterSplit(t *testing.T) {
	c := testsrv.StartCluster(t)
	url := "redis+cluster://" + c.Nodes[0].Addr() + "?split=slot"
	if n := slotsOf(splitKeys); n != len(splitKeys) {
		t.Fatalf("the keys have %d slots, want %d", n, len(splitKeys))
	}
	var mset, mget, check, exists strings.Builder
	mset.WriteString(`\resp MSET`)
	mget.WriteString(`\resp MGET`)
	exists.WriteString(`\resp EXISTS`)
	check.WriteString(`\if false`)
	for i, k := range splitKeys {
		n := k[len("s:"):]
		fmt.Fprintf(&mset, " %s %s", k, n)
		fmt.Fprintf(&mget, " %s", k)
		fmt.Fprintf(&exists, " %s", k)
		fmt.Fprintf(&check, " or :v_%d != %s", i+1, n)
	}
	fmt.Fprintf(&mget, " s:missing\n\\gset v_\n")
	fmt.Fprintf(&exists, " s:missing s:1\n\\gset e_\n")
	check.WriteString("\n\\set fail 1/0\n\\endif\n")

	// Keys written out: the static check lets them through.
	resetStats(t, c)
	res, stderr, err := runCluster(t, url, mset.String()+"\n", nil)
	if err != nil || res.Stats.Total.Failures() != 0 || res.Aborted != 0 {
		t.Fatalf("MSET: %v, %d failed, %d aborted\n%.2000s", err, res.Stats.Total.Failures(), res.Aborted, stderr)
	}
	parts := int64(len(splitKeys) + 1) // MGET's keys with s:missing
	script := mget.String() + check.String() + exists.String() + `\if :e_reply != 17
\set fail 1/0
\endif
`
	resetStats(t, c)
	res, stderr, err = runCluster(t, url, script, func(cfg *engine.Config) { cfg.VerboseErrors = true })
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Total.Cnt != 200 || st.Total.Failures() != 0 || res.Aborted != 0 {
		t.Fatalf("%d transactions, %d failed, %d aborted\n%.2000s", st.Total.Cnt, st.Total.Failures(), res.Aborted, stderr)
	}
	// One command each, hits and misses of every element.
	if st.Cache.Hits != 200*int64(len(splitKeys)) || st.Cache.Misses != 200 {
		t.Errorf("hits %d, misses %d; want %d, 200", st.Cache.Hits, st.Cache.Misses, 200*len(splitKeys))
	}
	if cmds := st.Commands[0]; cmds[0].Latency.Count != 200 || cmds[0].Cache.Hits != 200*int64(len(splitKeys)) {
		t.Errorf("MGET's -r line: %d latencies, %d hits", cmds[0].Latency.Count, cmds[0].Cache.Hits)
	}
	var mgets, existses int64
	for _, r := range c.Nodes {
		mgets += commandCalls(t, r, "mget")
		existses += commandCalls(t, r, "exists")
	}
	// MGET: a part per slot; EXISTS: s:1 twice shares its part.
	if mgets != 200*parts || existses != 200*parts {
		t.Errorf("the nodes ran %d MGET and %d EXISTS, want %d each (a part per slot)", mgets, existses, 200*parts)
	}

	t.Run("pipeline", func(t *testing.T) {
		res, stderr, err := runCluster(t, url, `\startpipeline
`+strings.TrimSuffix(strings.Split(mget.String(), "\n")[0], " s:missing")+`
\resp DEL s:zz1 s:zz2 s:zz3
`+strings.Split(mget.String(), "\n")[0]+`
\endpipeline
`, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stats
		if st.Total.Cnt != 200 || st.Total.Failures() != 0 || res.Aborted != 0 {
			t.Fatalf("%d transactions, %d failed, %d aborted\n%.2000s", st.Total.Cnt, st.Total.Failures(), res.Aborted, stderr)
		}
		if want := int64(2 * 200 * len(splitKeys)); st.Cache.Hits != want || st.Cache.Misses != 200 {
			t.Errorf("hits %d, misses %d; want %d, 200", st.Cache.Hits, st.Cache.Misses, want)
		}
		for i, cmd := range st.Commands[0][1:4] {
			if cmd.Latency.Count != 200 {
				t.Errorf("command %d: %d latencies, want 200", i+1, cmd.Latency.Count)
			}
		}
	})

	t.Run("not splittable", func(t *testing.T) {
		// MSETNX cannot be split: refused as without split.
		_, _, err := runCluster(t, url, "\\resp MSETNX a 1 b 2\n", nil)
		if err == nil || !strings.Contains(err.Error(), "MSETNX: keys in different hash slots") {
			t.Errorf("MSETNX: %v", err)
		}
	})
}

// TestClusterSplitMoved moves the slot of one key of a split MGET during
// a --rate run: the part of that slot is redirected alone, and the run
// ends with no failure and every element a hit.
func TestClusterSplitMoved(t *testing.T) {
	c := testsrv.StartCluster(t)
	url := "redis+cluster://" + c.Nodes[0].Addr() + "?split=slot"
	key := "{moved}k"
	slot := strconv.Itoa(int(resp.Slot([]byte(key))))
	keys := "{moved}k s:1 s:2 s:3 s:4 s:5 s:6 s:7"
	if _, stderr, err := runCluster(t, url, `\resp MSET {moved}k v s:1 1 s:2 2 s:3 3 s:4 4 s:5 5 s:6 6 s:7 7`, nil); err != nil {
		t.Fatal(err, stderr)
	}
	src, others := owner(t, c, key)
	dst := others[0]
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var moveErr error
	var wg sync.WaitGroup
	steps := [][]string{
		{dst.Addr(), "CLUSTER", "SETSLOT", slot, "IMPORTING", nodeID(t, src)},
		{src.Addr(), "CLUSTER", "SETSLOT", slot, "MIGRATING", nodeID(t, dst)},
		{src.Addr(), "MIGRATE", "127.0.0.1", strconv.Itoa(dst.Port), "", "0", "5000", "KEYS", key},
	}
	for _, n := range c.Nodes {
		if isMaster(t, n) {
			steps = append(steps, []string{n.Addr(), "CLUSTER", "SETSLOT", slot, "NODE", nodeID(t, dst)})
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		time.Sleep(time.Second)
		for _, s := range steps {
			if _, moveErr = testsrv.Command(s[0], s[1:]...); moveErr != nil {
				moveErr = fmt.Errorf("%s: %w", s[1:], moveErr)
				return
			}
		}
		time.Sleep(time.Second)
	}()
	res, stderr, err := runClusterCtx(ctx, t, url, `\resp MGET `+keys+`
\gset v_
\if :v_8 != 7
\set fail 1/0
\endif
`, func(cfg *engine.Config) {
		cfg.Transactions, cfg.Duration, cfg.Rate = 0, 30*time.Second, 200
		cfg.VerboseErrors = true
	})
	wg.Wait()
	if err != nil || moveErr != nil {
		t.Fatal(err, moveErr)
	}
	st := res.Stats
	if st.Total.Failures() != 0 || res.Aborted != 0 || st.Total.Cnt == 0 {
		t.Fatalf("%d transactions, %d failed, %d aborted\n%.2000s", st.Total.Cnt, st.Total.Failures(), res.Aborted, stderr)
	}
	if st.Cache.Moved < 1 {
		t.Errorf("moved %d (asked %d), want some", st.Cache.Moved, st.Cache.Asked)
	}
	if st.Cache.Misses != 0 || st.Cache.Hits != 8*st.Total.Cnt {
		t.Errorf("hits %d, misses %d in %d transactions; want 8 hits each", st.Cache.Hits, st.Cache.Misses, st.Total.Cnt)
	}
	t.Logf("moved %d, asked %d in %d transactions", st.Cache.Moved, st.Cache.Asked, st.Total.Cnt)
}

// TestClusterSplitAllocatesNothing compares cluster runs of 4000 and 2000
// transactions per client, as TestHotPathAllocatesNothing does: an MGET
// split in 8 parts, and an MGET of hash-tagged keys (the path without a
// split), allocate nothing per transaction once the buffers have grown.
func TestClusterSplitAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector")
	}
	c := testsrv.StartCluster(t)
	url := "redis+cluster://" + c.Nodes[0].Addr() + "?split=slot"
	if _, stderr, err := runCluster(t, url, `\resp MSET s:1 1 s:2 2 s:3 3 s:4 4 s:5 5 s:6 6 s:7 7 s:8 8`, nil); err != nil {
		t.Fatal(err, stderr)
	}
	mallocs := func(src string, n int64) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, stderr, err := runCluster(t, url, src, func(cfg *engine.Config) { cfg.Clients, cfg.Threads, cfg.Transactions = 2, 1, n })
		runtime.ReadMemStats(&after)
		if err != nil || res.Aborted != 0 || res.Stats.Total.Failures() != 0 {
			t.Fatalf("%v\n%s", err, stderr)
		}
		return after.Mallocs - before.Mallocs
	}
	for _, src := range []string{
		"\\set k random(1, 8)\n\\resp MGET s:1 s:2 s:3 s:4 s:5 s:6 s:7 s::k\n\\gset v_\n",
		"\\resp MGET {t}1 {t}2 {t}3 {t}4 {t}5 {t}6 {t}7 {t}8\n",
	} {
		small, large := mallocs(src, 2000), mallocs(src, 4000)
		perTxn := (float64(large) - float64(small)) / 4000
		t.Logf("%q: %d vs %d allocations: %.4f per transaction", src, small, large, perTxn)
		if perTxn > 0.01 {
			t.Errorf("%q: %.4f allocations per transaction in steady state", src, perTxn)
		}
	}
}
