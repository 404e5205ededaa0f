package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// TestWorkloadsCluster is issue 23's done-when: gbench workloads load
// --tagged loads the dataset into the 6-node cluster (each key on its
// master), the bundled resp-mget workloads run against it split by slot
// and their tagged variants unsplit, every element a hit, and the same
// scripts on one Redis loaded the same way count the same hits.
func TestWorkloadsCluster(t *testing.T) {
	c := testsrv.StartCluster(t)
	single := testsrv.StartRedis(t)
	cluster := "redis+cluster://" + c.Nodes[0].Addr()
	sizes := []string{"--tagged", "--items", "256", "--keyspace", "1000", "--sessions", "500", "--ycsb-records", "100"}
	// items, their tagged copies, kv, sessions, YCSB hashes, its index
	// and counter, the marker.
	const keys = 256 + 256 + 1000 + 500 + 100 + 2 + 1
	dbsize := func(nodes []*testsrv.Redis) int {
		n := 0
		for _, r := range nodes {
			if !isClusterMaster(t, r) {
				continue
			}
			out, err := r.Do("DBSIZE")
			if err != nil {
				t.Fatal(err)
			}
			k, _ := strconv.Atoi(out)
			n += k
		}
		return n
	}
	for _, url := range []string{cluster, single.URL()} {
		out := runGbench(append([]string{"workloads", "load", "--resp", url}, sizes...)...)
		if out.code != exitOK {
			t.Fatalf("load into %s: exit %d\n%s", url, out.code, out.stderr)
		}
		t.Logf("%s", out.stderr)
	}
	if n := dbsize(c.Nodes); n != keys {
		t.Errorf("the cluster's masters hold %d keys, want %d", n, keys)
	}
	if n := dbsize([]*testsrv.Redis{single}); n != keys {
		t.Errorf("the Redis holds %d keys, want %d", n, keys)
	}
	// Loading again replaces: the same keys, no error.
	if out := runGbench(append([]string{"workloads", "load", "--resp", cluster}, sizes...)...); out.code != exitOK ||
		!strings.Contains(out.stderr, "replacing the dataset (256 items of 128 bytes") || !strings.Contains(out.stderr, "  256 keys gbench:{item:*") {
		t.Fatalf("second load: exit %d\n%s", out.code, out.stderr)
	} else if n := dbsize(c.Nodes); n != keys {
		t.Errorf("after a second load the masters hold %d keys, want %d", n, keys)
	}

	dir := t.TempDir()
	const txns = 100 // 2 clients × 50
	hits := func(url, file string) (int64, string) {
		t.Helper()
		j := filepath.Join(dir, "r.json")
		out := runGbench("-f", "workloads/"+file, "-D", "items=256", "--resp", url, "-c", "2", "-t", "50", "--json", j)
		if out.code != exitOK {
			return -1, out.stderr
		}
		res := readJSON(t, j)
		if res.Cache == nil || res.Cache.Misses != 0 || res.Counters.Processed != txns || res.Counters.Failed != 0 {
			t.Errorf("%s on %s: %d transactions, %d failed, cache %+v", file, url, res.Counters.Processed, res.Counters.Failed, res.Cache)
			return -1, out.stderr
		}
		return res.Cache.Hits, out.stderr
	}
	for _, c := range []struct {
		file  string
		split bool
		keys  int64
	}{
		{"resp-mget1.sql", true, 1}, {"resp-mget16.sql", true, 16}, {"resp-mget64.sql", true, 64},
		{"resp-mget1-random.sql", true, 1}, {"resp-mget16-random.sql", true, 16}, {"resp-mget64-random.sql", true, 64},
		{"resp-mget16-tagged.sql", false, 16}, {"resp-mget64-tagged.sql", false, 64},
		{"resp-mget16-random-tagged.sql", false, 16}, {"resp-mget64-random-tagged.sql", false, 64},
	} {
		url := cluster
		if c.split {
			url += "?split=slot"
		}
		got, stderr := hits(url, c.file)
		if got != c.keys*txns {
			t.Errorf("%s on the cluster (split %v): %d hits, want %d\n%s", c.file, c.split, got, c.keys*txns, stderr)
		}
		if one, stderr := hits(single.URL(), c.file); one != got {
			t.Errorf("%s on one Redis: %d hits, on the cluster %d\n%s", c.file, one, got, stderr)
		}
	}
	// Unsplit, the untagged keys span slots: the clients abort.
	out := runGbench("-f", "workloads/resp-mget16.sql", "--resp", cluster, "-c", "1", "-t", "1")
	if out.code != 2 || !strings.Contains(out.stderr, "keys in different hash slots") {
		t.Errorf("resp-mget16.sql unsplit: exit %d\n%s", out.code, out.stderr)
	}

	if out := runGbench("workloads", "drop", "--resp", cluster); out.code != exitOK {
		t.Fatalf("drop: exit %d\n%s", out.code, out.stderr)
	}
	if n := dbsize(c.Nodes); n != 0 {
		t.Errorf("after drop the masters hold %d keys", n)
	}
}

// isClusterMaster reports whether a cluster node is a master now.
func isClusterMaster(t *testing.T, r *testsrv.Redis) bool {
	t.Helper()
	info, err := r.Do("INFO", "replication")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(info, "role:master")
}
