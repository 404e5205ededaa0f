package engine

import (
	"fmt"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/engine/internal/netpoll"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// This file is what a cluster (a Redis Cluster URL) adds to the client
// state machine. The protocol's connector is a driver.Cluster: every
// client gets a driver.Router, which says which node each command goes to.
// The client's connection to node 0 is the protocol's own slot in
// c.conns, opened with the others at the start; node n > 0 has slot
// len(protos)+n-1, opened when a command first goes there. A MOVED or ASK
// reply (driver.Redirected) resends the request to the node it names,
// counted in the cache counters. Outside a cluster c.route is nil, the
// stride is len(protos), and nothing here runs.

// setStride sets the connection slots of each client.
func (r *run) setStride() error {
	r.stride = len(r.protos)
	for _, p := range r.protos {
		if p.cluster != nil {
			r.stride += p.cluster.NewRouter().MaxServers() - 1
		}
	}
	if r.stride > 64 {
		return fmt.Errorf("%d connections per client: at most 64", r.stride)
	}
	return nil
}

// setRouter gives a client its router when a protocol is a cluster's.
func (r *run) setRouter(c *client) {
	for k, p := range r.protos {
		if p.cluster != nil {
			c.route, c.routeK = p.cluster.NewRouter(), k
		}
	}
}

// nodeSlot is the index in c.conns of the connection to cluster node n.
func (c *client) nodeSlot(n int) int {
	if n == 0 {
		return c.routeK
	}
	return len(c.th.run.protos) + n - 1
}

// routeCommand routes a command of the cluster's protocol and returns the
// slot of the connection it goes on, opened if need be, or -1 when the
// router split it (split.go). ok is false when the client aborted or lost
// its connections.
func (c *client) routeCommand(cmd *script.Command) (k int, ok bool) {
	node, err := c.route.Route(cmd, c.env.Vars)
	if err != nil {
		c.encodeFailed(c.conns[c.routeK], cmd, err)
		return 0, false
	}
	if node == driver.Split {
		return -1, true // split by slot: sendSplit sends the parts
	}
	return c.nodeConn(node)
}

// nodeConn returns the slot of the connection to node n, opening it when
// the client has none. The connection is opened on the thread, blocking
// it as -C does: it happens once per client and node (after a failover or
// a resharding to a new node, again), not per transaction.
func (c *client) nodeConn(n int) (int, bool) {
	k := c.nodeSlot(n)
	if k >= len(c.conns) {
		c.connLost(c.conns[c.routeK], fmt.Sprintf("cluster node %d is beyond the %d a run can use", n, len(c.conns)-len(c.th.run.protos)+1))
		return 0, false
	}
	if c.conns[k] != nil {
		return k, true
	}
	t := c.th
	start := t.clock()
	nc, d, err := c.route.Connect(t.run.ctx, t.run.net.Dial, n)
	var tr netpoll.Stream
	if err == nil {
		if tr, err = t.run.net.Take(nc); err != nil {
			nc.Close()
		}
	}
	if err == nil {
		cn := newConn(tr, d)
		cn.tok = t.connToken(c.index, k)
		cn.attach(&t.bufs)
		if err = t.poll.Add(cn.tr, cn.tok); err != nil {
			_ = cn.tr.Close()
		} else {
			c.conns[k] = cn
		}
	}
	t.cur.ConnTime += (t.clock() - start) / 1000
	if err != nil {
		c.connLost(c.conns[c.routeK], fmt.Sprintf("connection to cluster node %d failed: %v", n, err))
		return 0, false
	}
	return k, true
}

// redirect resends the request a MOVED or ASK reply on cn redirected, and
// counts it. It reports false when the client aborted or lost its
// connections.
func (c *client) redirect(cn *conn) bool {
	r := &cn.reply
	idx := r.Tag
	if idx < 0 {
		idx = c.cmd
	}
	rc := &r.Cache
	c.th.cur.AddCache(c.script, idx, &stats.Cache{Moved: int64(rc.Moved), Asked: int64(rc.Asked),
		BytesSent: rc.Sent, BytesRecv: rc.Received})
	if c.route == nil {
		c.th.errorf("client %d aborted in command %d (%s) of script %d; a redirect outside a cluster", c.id, idx, cn.d.Name(), c.script)
		c.state = stAborted
		return false
	}
	k, ok := c.nodeConn(r.Node)
	if !ok {
		return false
	}
	to := c.conns[k]
	to.out = c.route.Resend(to.d, to.out)
	if _, err := to.flush(); err != nil {
		c.sendFailed(to)
		return false
	}
	c.th.watchWrite(&to.sconn)
	if c.pipeline || c.state != stWaitResult {
		c.wait |= waitOn(k)
	} else {
		// The connections still owed a reply stay: the other parts of a
		// split command (split.go).
		c.wait = c.pendingSet()&c.wait | waitOn(k)
	}
	return true
}
