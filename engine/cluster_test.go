package engine_test

import (
	"context"
	"fmt"
	osexec "os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/script"
)

// runCluster runs a script against a cluster URL.
func runCluster(t testing.TB, url, text string, edit func(*engine.Config)) (*engine.Result, string, error) {
	t.Helper()
	return runClusterCtx(context.Background(), t, url, text, edit)
}

func runClusterCtx(ctx context.Context, t testing.TB, url, text string, edit func(*engine.Config)) (*engine.Result, string, error) {
	t.Helper()
	o, err := resp.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	s, err := script.Parse("cluster.sql", text, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 4, Threads: 2, Transactions: 50, MaxTries: 1,
		Seed: 1, Scale: 1, RESP: resp.Connector(o), Stderr: &stderr, PerCommand: true}
	if edit != nil {
		edit(cfg)
	}
	res, err := engine.Run(ctx, cfg)
	return res, stderr.String(), err
}

// commandCalls returns the calls of a command (lower case, "get") in a
// node's INFO commandstats.
func commandCalls(t testing.TB, r *testsrv.Redis, name string) int64 {
	t.Helper()
	info, err := r.Do("INFO", "commandstats")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+name+":calls=")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
		return n
	}
	return 0
}

func resetStats(t testing.TB, c *testsrv.Cluster) {
	t.Helper()
	for _, r := range c.Nodes {
		if _, err := r.Do("CONFIG", "RESETSTAT"); err != nil {
			t.Fatal(err)
		}
	}
}

// isMaster reports whether a node is a master now.
func isMaster(t testing.TB, r *testsrv.Redis) bool {
	t.Helper()
	info, err := r.Do("INFO", "replication")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(info, "role:master")
}

// TestCluster runs the cluster mode against a 6-node cluster the test
// starts: each command goes to the master of its key's slot (every
// master's commandstats show its share and the totals are the run's, so
// nothing was redirected), a cross-slot MGET aborts the client with the
// keys and slots named, \gset and pipelines work over several nodes,
// replica reads land on the replicas, and MOVED and ASK are followed
// and counted.
func TestCluster(t *testing.T) {
	c := testsrv.StartCluster(t)
	url := "redis+cluster://" + c.Nodes[0].Addr()

	t.Run("routing", func(t *testing.T) {
		resetStats(t, c)
		res, stderr, err := runCluster(t, url, `\set k random(1, 100000)
\resp SET {t::k}a :k
\resp GET {t::k}a
\resp MGET {t::k}a {t::k}b {t::k}c
`, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stats
		if st.Total.Cnt != 200 || st.Total.Failures() != 0 || res.Aborted != 0 {
			t.Fatalf("%d transactions, %d failed, %d aborted\n%s", st.Total.Cnt, st.Total.Failures(), res.Aborted, stderr)
		}
		if st.Cache.Moved != 0 || st.Cache.Asked != 0 {
			t.Errorf("moved %d, asked %d on a stable cluster", st.Cache.Moved, st.Cache.Asked)
		}
		for _, name := range []string{"set", "get", "mget"} {
			var sum int64
			for _, r := range c.Nodes[:3] {
				n := commandCalls(t, r, name)
				// 200 random keys over 3 masters: each gets about 67; none
				// gets none unless routing sends everything elsewhere
				// (probability 3*(2/3)^200, nil).
				if n == 0 {
					t.Errorf("master %s ran no %s", r.Addr(), name)
				}
				sum += n
			}
			if sum != 200 {
				t.Errorf("masters ran %d %s, want 200", sum, name)
			}
		}
		if hits := st.Cache.Hits; hits != 400 {
			t.Errorf("hits %d, want 400 (GET and MGET's first key)", hits)
		}
	})

	t.Run("cross-slot", func(t *testing.T) {
		// Keys written out: refused before the run, naming the line.
		_, _, err := runCluster(t, url, "\\set x 1\n\\resp MGET a b\n", nil)
		if err == nil || !strings.Contains(err.Error(), `cluster.sql:2: \resp MGET a b: MGET: keys in different hash slots: "a" (slot 15495), "b" (slot 3300)`) {
			t.Errorf("static refusal: %v", err)
		}
		// Keys from variables: the client aborts at run time.
		res, stderr, err := runCluster(t, url, "\\set a 1\n\\resp MGET gbench:item::a gbench:item:2", func(cfg *engine.Config) { cfg.Clients, cfg.Threads = 1, 1 })
		if err != nil {
			t.Fatal(err)
		}
		s1, s2 := resp.Slot([]byte("gbench:item:1")), resp.Slot([]byte("gbench:item:2"))
		want := `MGET: keys in different hash slots: "gbench:item:1" (slot ` + strconv.Itoa(int(s1)) + `), "gbench:item:2" (slot ` + strconv.Itoa(int(s2)) + `)`
		if res.Aborted != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "client 0 aborted in command 1 (resp)") {
			t.Errorf("aborted %d, stderr:\n%s\nwant %s", res.Aborted, stderr, want)
		}
	})

	t.Run("gset and pipeline", func(t *testing.T) {
		res, stderr, err := runCluster(t, url, `\set k random(1, 100000)
\resp SET a::k :k
\resp GET a::k
\gset
\if :reply != :k
\set fail 1/0
\endif
\startpipeline
\resp SET b::k 1
\resp SET c::k 2
\resp GET d::k
\resp INCR e::k
\endpipeline
`, func(cfg *engine.Config) { cfg.VerboseErrors = true })
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.Total.Cnt != 200 || res.Stats.Total.Failures() != 0 || res.Aborted != 0 {
			t.Fatalf("%d transactions, %d failed, %d aborted\n%.2000s", res.Stats.Total.Cnt, res.Stats.Total.Failures(), res.Aborted, stderr)
		}
	})

	t.Run("replica reads", func(t *testing.T) {
		for _, rfr := range []string{"yes", "all"} {
			resetStats(t, c)
			res, stderr, err := runCluster(t, url+"?rfr="+rfr, `\set k random(1, 100000)
\resp GET r::k
\resp SET r::k 1
`, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Total.Failures() != 0 || res.Aborted != 0 {
				t.Fatalf("rfr=%s: %d failed, %d aborted\n%s", rfr, res.Stats.Total.Failures(), res.Aborted, stderr)
			}
			var masterGets, replicaGets, masterSets int64
			for _, r := range c.Nodes {
				if isMaster(t, r) {
					masterGets += commandCalls(t, r, "get")
					masterSets += commandCalls(t, r, "set")
				} else {
					replicaGets += commandCalls(t, r, "get")
				}
			}
			// Replicas count the writes they replicate too: the sets are
			// checked on the masters.
			if masterGets+replicaGets != 200 || masterSets != 200 {
				t.Errorf("rfr=%s: gets %d on masters, %d on replicas; %d sets on masters", rfr, masterGets, replicaGets, masterSets)
			}
			switch rfr {
			case "yes":
				if masterGets != 0 {
					t.Errorf("rfr=yes: %d gets on masters", masterGets)
				}
			case "all":
				// Each client alternates master and replica per shard.
				if masterGets == 0 || replicaGets == 0 {
					t.Errorf("rfr=all: %d gets on masters, %d on replicas", masterGets, replicaGets)
				}
			}
		}
	})
}

// owner returns the master that serves key's slot now, and the other
// masters.
func owner(t testing.TB, c *testsrv.Cluster, key string) (*testsrv.Redis, []*testsrv.Redis) {
	t.Helper()
	var own *testsrv.Redis
	var others []*testsrv.Redis
	for _, r := range c.Nodes {
		if !isMaster(t, r) {
			continue
		}
		if _, err := r.Do("GET", key); err == nil && own == nil {
			own = r
		} else {
			others = append(others, r)
		}
	}
	if own == nil {
		t.Fatalf("no master serves %q", key)
	}
	return own, others
}

func nodeID(t testing.TB, r *testsrv.Redis) string {
	t.Helper()
	id, err := r.Do("CLUSTER", "MYID")
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func do(t testing.TB, r *testsrv.Redis, args ...string) string {
	t.Helper()
	out, err := r.Do(args...)
	if err != nil {
		t.Fatalf("%s on %s: %v", args, r.Addr(), err)
	}
	return out
}

// TestClusterRedirects moves a slot during a run (MOVED: every client
// goes on at the new master, and the map is refreshed) and holds one in
// migration before a run (ASK: every GET of a key the source lacks is
// answered by the target after ASKING).
func TestClusterRedirects(t *testing.T) {
	c := testsrv.StartCluster(t)
	url := "redis+cluster://" + c.Nodes[0].Addr()
	key := "{moved}k"
	slot := strconv.Itoa(int(resp.Slot([]byte(key))))

	t.Run("ASK", func(t *testing.T) {
		src, others := owner(t, c, "{ask}k")
		dst := others[0]
		askSlot := strconv.Itoa(int(resp.Slot([]byte("{ask}k"))))
		do(t, dst, "CLUSTER", "SETSLOT", askSlot, "IMPORTING", nodeID(t, src))
		do(t, src, "CLUSTER", "SETSLOT", askSlot, "MIGRATING", nodeID(t, dst))
		defer func() {
			do(t, src, "CLUSTER", "SETSLOT", askSlot, "STABLE")
			do(t, dst, "CLUSTER", "SETSLOT", askSlot, "STABLE")
		}()
		resetStats(t, c)
		res, stderr, err := runCluster(t, url, `\resp GET {ask}k`, nil)
		if err != nil {
			t.Fatal(err)
		}
		st := res.Stats
		if st.Total.Cnt != 200 || st.Total.Failures() != 0 || res.Aborted != 0 {
			t.Fatalf("%d transactions, %d failed, %d aborted\n%.2000s", st.Total.Cnt, st.Total.Failures(), res.Aborted, stderr)
		}
		// The source lacks the key: it answers every GET with ASK.
		if st.Cache.Asked != 200 || st.Cache.Moved != 0 || st.Cache.Misses != 200 {
			t.Errorf("asked %d, moved %d, misses %d; want 200, 0, 200", st.Cache.Asked, st.Cache.Moved, st.Cache.Misses)
		}
		if n := commandCalls(t, dst, "asking"); n != 200 {
			t.Errorf("the target ran ASKING %d times, want 200", n)
		}
		if n := commandCalls(t, dst, "get"); n != 200 {
			t.Errorf("the target ran GET %d times, want 200", n)
		}
	})

	t.Run("MOVED", func(t *testing.T) {
		src, others := owner(t, c, key)
		dst := others[0]
		do(t, src, "SET", key, "v")
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
			// Let the run route the slot to src first; the run's -T is
			// the bound, the cancel its end.
			time.Sleep(time.Second)
			for _, s := range steps {
				if _, moveErr = testsrv.Command(s[0], s[1:]...); moveErr != nil {
					moveErr = fmt.Errorf("%s: %w", s[1:], moveErr)
					return
				}
			}
			time.Sleep(time.Second)
		}()
		res, stderr, err := runClusterCtx(ctx, t, url, `\resp GET {moved}k
\resp SET {moved}k v
`, func(cfg *engine.Config) {
			cfg.Transactions, cfg.Duration, cfg.Rate = 0, 30*time.Second, 200
			cfg.Clients, cfg.Threads = 4, 2
		})
		wg.Wait()
		if err != nil || moveErr != nil {
			t.Fatal(err, moveErr)
		}
		st := res.Stats
		if st.Total.Failures() != 0 || res.Aborted != 0 || st.Total.Cnt == 0 {
			t.Fatalf("%d transactions, %d failed, %d aborted\n%.2000s", st.Total.Cnt, st.Total.Failures(), res.Aborted, stderr)
		}
		// Between the MIGRATE and the SETSLOT NODE the source answers
		// ASK; after it, MOVED, which sets the slot's node for every
		// client.
		if st.Cache.Moved < 1 {
			t.Errorf("moved %d (asked %d), want some", st.Cache.Moved, st.Cache.Asked)
		}
		t.Logf("moved %d, asked %d in %d transactions", st.Cache.Moved, st.Cache.Asked, st.Total.Cnt)
		if st.Cache.Misses != 0 {
			t.Errorf("%d misses: the key was lost in the move", st.Cache.Misses)
		}
	})
}

// TestClusterReshard moves 1000 slots with redis-cli --cluster reshard
// during a --rate run of GETs and SETs over keys spread on every master:
// no request may fail, and the MOVEDs (and any ASKs of keys caught in a
// migration) are counted. The run ends one second after the reshard does;
// its -T of 120 s only bounds a reshard that hangs.
func TestClusterReshard(t *testing.T) {
	cli := testsrv.NeedRedisCLI(t)
	c := testsrv.StartCluster(t)
	url := "redis+cluster://" + c.Nodes[0].Addr()
	// Keys first, so that the reshard migrates some.
	if _, stderr, err := runCluster(t, url, `\set k random(1, 250)
\resp SET rk::client_id::k :k
`, func(cfg *engine.Config) { cfg.Clients = 8 }); err != nil {
		t.Fatal(err, stderr)
	}
	from, to := nodeID(t, c.Nodes[0]), nodeID(t, c.Nodes[1])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out []byte
	var reshardErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer cancel()
		time.Sleep(time.Second)
		out, reshardErr = osexec.Command(cli, "--cluster", "reshard", c.Nodes[0].Addr(),
			"--cluster-from", from, "--cluster-to", to, "--cluster-slots", "1000", "--cluster-yes").CombinedOutput()
		time.Sleep(time.Second)
	}()
	// Each transaction writes a key of its client's and reads it back
	// (keys shared by clients would let another client's write come
	// between): a write lost to the migration would fail \set (a
	// division by zero aborts).
	res, stderr, err := runClusterCtx(ctx, t, url, `\set k random(1, 250)
\set v random(1, 1000000)
\resp SET rk::client_id::k :v
\resp GET rk::client_id::k
\gset
\if :reply != :v
\set fail 1/0
\endif
`, func(cfg *engine.Config) {
		cfg.Transactions, cfg.Duration, cfg.Rate, cfg.Clients = 0, 120*time.Second, 400, 8
		cfg.VerboseErrors = true
	})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if reshardErr != nil {
		t.Fatalf("redis-cli --cluster reshard: %v\n%s", reshardErr, out)
	}
	st := res.Stats
	if st.Total.Cnt == 0 || st.Total.Failures() != 0 || res.Aborted != 0 || st.Total.Skipped != 0 {
		t.Fatalf("%d transactions, %d failed, %d aborted, %d skipped\n%.3000s", st.Total.Cnt, st.Total.Failures(), res.Aborted, st.Total.Skipped, stderr)
	}
	// The map changes only after a MOVED: in the second after the
	// reshard, 400 tx/s over 2000 keys of which some 1000/16384 now live
	// elsewhere make some 24 requests that must meet one (P(none) =
	// e^-24).
	if st.Cache.Moved == 0 {
		t.Errorf("no MOVED counted in %d transactions (asked %d)", st.Total.Cnt, st.Cache.Asked)
	}
	if st.Cache.Misses != 0 {
		t.Errorf("%d misses: written keys lost in the reshard", st.Cache.Misses)
	}
	t.Logf("%d transactions, moved %d, asked %d", st.Total.Cnt, st.Cache.Moved, st.Cache.Asked)
}
