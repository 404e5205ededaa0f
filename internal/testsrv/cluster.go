package testsrv

import (
	"crypto/tls"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Cluster is a throwaway Redis Cluster of three masters with a replica
// each, on 127.0.0.1. Its methods fail the test on error.
type Cluster struct {
	// Nodes are the six servers, in the order given to redis-cli --cluster
	// create: it makes the first three masters.
	Nodes []*Redis
}

// StartCluster starts six redis-servers with --cluster-enabled yes on
// free ports, joins them with redis-cli --cluster create ...
// --cluster-replicas 1 and returns once every node reports cluster_state:ok
// and knows all six. The servers are killed when the test ends.
func StartCluster(t testing.TB, args ...string) *Cluster {
	t.Helper()
	return startCluster(t, nil, nil, args...)
}

// startCluster is StartCluster; with a non-nil client config the nodes
// are started by startRedis with it and redis-cli gets the options cli
// (its TLS ones) before --cluster create.
func startCluster(t testing.TB, client *tls.Config, cli []string, args ...string) *Cluster {
	t.Helper()
	bin, err := exec.LookPath("redis-cli")
	if err != nil {
		need(t, "redis-cli not found on PATH (apt install redis-tools)")
	}
	c := &Cluster{}
	create := append(cli, "--cluster", "create")
	for range 6 {
		r := startRedis(t, client, append([]string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "5000"}, args...)...)
		c.Nodes = append(c.Nodes, r)
		create = append(create, r.Addr())
	}
	cmd := exec.Command(bin, append(create, "--cluster-replicas", "1", "--cluster-yes")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.wait(t)
	return c
}

// Addrs are the nodes' "127.0.0.1:port" addresses.
func (c *Cluster) Addrs() []string {
	a := make([]string, len(c.Nodes))
	for i, r := range c.Nodes {
		a[i] = r.Addr()
	}
	return a
}

// URL is "redis://<the first node>": where a client discovers the cluster.
func (c *Cluster) URL() string { return "redis://" + c.Nodes[0].Addr() }

// wait waits until every node says the cluster is ok, knows the six
// nodes and three of them as replicas, every replica's link to its master
// is up, and CLUSTER SLOTS lists the six (Redis 7 leaves out replicas
// whose replication offset it has not heard of yet).
func (c *Cluster) wait(t testing.TB) {
	t.Helper()
	for _, r := range c.Nodes {
		var info, nodes string
		if !waitFor(30*time.Second, func() bool {
			info, _ = r.Do("CLUSTER", "INFO")
			nodes, _ = r.Do("CLUSTER", "NODES")
			repl, _ := r.Do("INFO", "replication")
			return strings.Contains(info, "cluster_state:ok") &&
				strings.Contains(info, "cluster_known_nodes:"+strconv.Itoa(len(c.Nodes))) &&
				strings.Count(nodes, " slave ")+strings.Count(nodes, ",slave ") == len(c.Nodes)/2 &&
				(strings.Contains(repl, "role:master") || strings.Contains(repl, "master_link_status:up")) &&
				c.slotsNodes(r) == len(c.Nodes)
		}) {
			t.Fatalf("node %s: the cluster did not become ok\n%s\n%s\n%s", r.Addr(), info, nodes, tail(r.Log))
		}
	}
}

// slotsNodes counts the node IDs r's CLUSTER SLOTS lists.
func (c *Cluster) slotsNodes(r *Redis) int {
	slots, _ := r.Do("CLUSTER", "SLOTS")
	n := 0
	for line := range strings.Lines(slots) {
		if len(strings.TrimSpace(line)) == 40 {
			n++
		}
	}
	return n
}
