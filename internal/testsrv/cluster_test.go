package testsrv_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
)

// TestStartCluster discovers the slot map of a new cluster with both
// parsers: three masters cover the 16384 slots, each with a replica; the
// slots of keys agree with CLUSTER KEYSLOT, a node's MOVED names the
// slot and the master the map gives, and the server refuses with
// CROSSSLOT the keys SameSlot refuses.
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
	if _, _, err := cl.Call("CLUSTER", "SHARDS"); err != nil {
		t.Fatal(err)
	}
	m, err := resp.ParseClusterShards(cl.Reader())
	if err != nil {
		t.Fatal(err)
	}
	checkRedirects(t, cl, m)
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

// checkRedirects reads keys of every master's slots from the first node:
// those it does not serve come back as MOVED to the master the map says;
// MGET of keys in two slots is refused with CROSSSLOT, as SameSlot does.
func checkRedirects(t *testing.T, cl *resp.Client, m resp.SlotMap) {
	t.Helper()
	moved := 0
	for i := range 30 {
		key := "gbench:item:" + strconv.Itoa(i)
		vals, top := raw(t, cl, "GET", key)
		v := vals[top]
		if !v.IsError() {
			continue
		}
		r, ok := resp.ParseRedirect(v.Bytes)
		slot := resp.Slot([]byte(key))
		if !ok || r.Ask || r.Slot != slot || r.Addr != m.Lookup(slot).Master.Addr {
			t.Errorf("GET %s: %q, want MOVED %d %s", key, v.Bytes, slot, m.Lookup(slot).Master.Addr)
		}
		moved++
	}
	if moved == 0 {
		t.Error("no key of 30 was on another node")
	}
	args := [][]byte{[]byte("MGET"), []byte("{a}1"), []byte("{b}1")}
	keys, _ := resp.Keys(nil, args)
	if _, err := resp.SameSlot(args, keys); err == nil {
		t.Fatal("SameSlot takes {a}1 and {b}1")
	}
	vals, top := raw(t, cl, "MGET", "{a}1", "{b}1")
	if class := resp.ErrorClass(vals[top].Bytes); !vals[top].IsError() || class != "CROSSSLOT" {
		t.Errorf("MGET {a}1 {b}1: %q, want CROSSSLOT", vals[top].Bytes)
	}
}

// raw sends a command and returns its reply, error replies included.
func raw(t *testing.T, cl *resp.Client, args ...string) ([]resp.Value, int) {
	t.Helper()
	cl.Send(args...)
	if err := cl.Flush(); err != nil {
		t.Fatal(err)
	}
	vals, top, err := cl.Reply()
	if err != nil {
		t.Fatal(err)
	}
	return vals, top
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
