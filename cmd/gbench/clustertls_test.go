package main

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// TestRedisClusterTLS runs gbench over every transport against a 6-node
// cluster that serves TLS only and requires client certificates: GETs on
// the masters, GETs on the replicas under rfr=yes and MGETs split by slot,
// each counted by the nodes' INFO commandstats; a wrong CA and a missing
// client key are setup failures (exit 1) that name the problem.
func TestRedisClusterTLS(t *testing.T) {
	ca := testsrv.NewCA(t, "gbench cluster CA")
	cert, key := ca.Issue(t, "node", "127.0.0.1")
	c := testsrv.StartClusterTLS(t, testsrv.ClusterTLS{Cert: cert, Key: key, CA: ca.Cert})
	dir := t.TempDir()
	q := url.QueryEscape
	hosts := "rediss+cluster://" + strings.Join(c.Addrs(), ",")
	crt, keyFile := testsrv.WriteFile(t, dir, "client.crt", cert), testsrv.WriteFile(t, dir, "client.key", key)
	base := hosts + "?tls_ca_cert=" + q(testsrv.WriteFile(t, dir, "ca.crt", ca.Cert)) +
		"&tls_cert=" + q(crt) + "&tls_key=" + q(keyFile)
	get := testsrv.WriteFile(t, dir, "get.sql", []byte("\\set k random(1, 1000)\n\\resp GET gbench:tls::k\n"))
	const txns = 60 // 2 clients × 30
	for _, tr := range []string{"io_uring", "epoll", "portable"} {
		t.Run(tr, func(t *testing.T) {
			t.Setenv("GBENCH_TRANSPORT", tr)
			for _, w := range []struct {
				name, script, params, cmd string
				replicas                  bool
			}{
				{"GET", get, "", "get", false},
				{"GET rfr=yes", get, "&rfr=yes", "get", true},
				{"MGET split=slot", "workloads/resp-mget16.sql", "&split=slot", "mget", false},
			} {
				resetStats(t, c)
				runClusterTLS(t, w.name, tr, filepath.Join(dir, "r.json"), "-f", w.script, "-c", "2", "-t", "30", "--resp", base+w.params)
				checkCommandStats(t, c, w.name, w.cmd, w.replicas, txns)
			}
		})
	}
	other := testsrv.NewCA(t, "another CA")
	for _, tc := range []struct{ name, url, want string }{
		{"the wrong CA", hosts + "?tls_ca_cert=" + q(testsrv.WriteFile(t, dir, "other.crt", other.Cert)) +
			"&tls_cert=" + q(crt) + "&tls_key=" + q(keyFile), "certificate signed by unknown authority"},
		{"a missing key file", base[:strings.Index(base, "&tls_key=")] + "&tls_key=" + q(dir+"/none.key"), dir + "/none.key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runGbench("-f", get, "-t", "5", "--resp", tc.url)
			if out.code != 1 || !strings.Contains(out.stderr, tc.want) {
				t.Errorf("exit %d, want 1 and an error with %q\n%s%s", out.code, tc.want, out.stdout, out.stderr)
			}
		})
	}
}

// runClusterTLS runs gbench with args and --json j and fails the test
// unless it processed 60 transactions, none failed, over the transport tr.
func runClusterTLS(t *testing.T, name, tr, j string, args ...string) {
	t.Helper()
	out := runGbench(append(args, "--json", j)...)
	if out.code != exitOK {
		t.Fatalf("%s: exit %d\n%s%s", name, out.code, out.stdout, out.stderr)
	}
	res := readJSON(t, j)
	if res.Counters.Processed != 60 || res.Counters.Failed != 0 {
		t.Errorf("%s: %d transactions, %d failed, want 60 and 0", name, res.Counters.Processed, res.Counters.Failed)
	}
	if res.Versions.Transport != tr {
		t.Errorf("%s: the run's transport is %q, want %q", name, res.Versions.Transport, tr)
	}
}

// resetStats zeroes every node's INFO commandstats.
func resetStats(t *testing.T, c *testsrv.Cluster) {
	t.Helper()
	for _, r := range c.Nodes {
		if _, err := r.Do("CONFIG", "RESETSTAT"); err != nil {
			t.Fatal(err)
		}
	}
}

// checkCommandStats checks that the calls of cmd the nodes counted sum to
// at least n, all on replicas when replicas is set and else all on
// masters, and on more than one node.
func checkCommandStats(t *testing.T, c *testsrv.Cluster, name, cmd string, replicas bool, n int) {
	t.Helper()
	total, nodes := 0, 0
	for _, r := range c.Nodes {
		calls := commandCalls(t, r, cmd)
		if calls > 0 && isClusterMaster(t, r) == replicas {
			t.Errorf("%s: %d %s calls on %s (master %v), want none there", name, calls, cmd, r.Addr(), !replicas)
		}
		if calls > 0 {
			nodes++
		}
		total += calls
	}
	if total < n || nodes < 2 {
		t.Errorf("%s: the nodes counted %d %s calls on %d nodes, want at least %d on 2 or more", name, total, cmd, nodes, n)
	}
}

// commandCalls is the calls= of cmdstat_<cmd> in r's INFO commandstats.
func commandCalls(t *testing.T, r *testsrv.Redis, cmd string) int {
	t.Helper()
	info, err := r.Do("INFO", "commandstats")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if rest, ok := strings.CutPrefix(line, "cmdstat_"+cmd+":calls="); ok {
			n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
			return n
		}
	}
	return 0
}
