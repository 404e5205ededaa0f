package testsrv_test

import (
	"context"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
)

// TestStartCluster discovers the slot map of a new cluster with both
// parsers: three masters cover the 16384 slots, each with a replica, and
// the slots of keys agree with CLUSTER KEYSLOT.
func TestStartCluster(t *testing.T) {
	c := testsrv.StartCluster(t)
	o, err := resp.ParseURL(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := resp.Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cl := resp.NewClient(conn)
	cl.SetTimeout(5 * time.Second)
	for _, q := range []struct {
		cmd   string
		parse func(*resp.Reader) (resp.SlotMap, error)
	}{{"SHARDS", resp.ParseClusterShards}, {"SLOTS", resp.ParseClusterSlots}} {
		if _, _, err := cl.Call("CLUSTER", q.cmd); err != nil {
			t.Fatal(err)
		}
		m, err := q.parse(cl.Reader())
		if err != nil {
			t.Fatalf("CLUSTER %s: %v", q.cmd, err)
		}
		checkCluster(t, c, q.cmd, m)
	}
	for _, key := range []string{"123456789", "{user1000}.following", "gbench:item:1", "foo{}{bar}"} {
		want, err := c.Nodes[0].Do("CLUSTER", "KEYSLOT", key)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Slot([]byte(key)); itoa(got) != want {
			t.Errorf("Slot(%q) = %d, CLUSTER KEYSLOT says %s", key, got, want)
		}
	}
}

func checkCluster(t *testing.T, c *testsrv.Cluster, cmd string, m resp.SlotMap) {
	t.Helper()
	if m.Covered() != resp.SlotCount {
		t.Errorf("CLUSTER %s: the map covers %d slots, want %d: %+v", cmd, m.Covered(), resp.SlotCount, m)
	}
	masters, known := map[string]bool{}, map[string]bool{}
	for _, a := range c.Addrs() {
		known[a] = true
	}
	for _, r := range m.Ranges {
		masters[r.Master.Addr] = true
		if !known[r.Master.Addr] || len(r.Replicas) != 1 || !known[r.Replicas[0].Addr] {
			t.Errorf("CLUSTER %s: range %d-%d: master %s, replicas %+v", cmd, r.Start, r.End, r.Master.Addr, r.Replicas)
		}
	}
	if len(masters) != 3 {
		t.Errorf("CLUSTER %s: %d masters, want 3", cmd, len(masters))
	}
}

func itoa(n uint16) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
