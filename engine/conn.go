package engine

import (
	"context"
	"fmt"
	"net"

	"github.com/gbench/gbench/engine/internal/netpoll"

	"github.com/gbench/gbench/engine/driver"
)

// conn is a client's connection for one protocol: a transport with its
// buffers, and the driver that encodes into them and decodes from them.
// The optional abilities are looked up once.
type conn struct {
	sconn
	d     driver.Driver
	pipe  driver.Pipeliner     // nil when pipelined commands are answered one by one
	prep  driver.Preparer      // nil when nothing is prepared before a pipeline
	tx    driver.Transactional // nil when the server keeps no transaction
	desc  driver.Describer
	reply driver.Reply
}

func newConn(tr netpoll.Stream, d driver.Driver) *conn {
	c := &conn{sconn: sconn{tr: tr}, d: d}
	c.pipe, _ = d.(driver.Pipeliner)
	c.prep, _ = d.(driver.Preparer)
	c.tx, _ = d.(driver.Transactional)
	c.desc, _ = d.(driver.Describer)
	return c
}

// connToken is the poller token of a client's connection k.
func (t *thread) connToken(index, k int) netpoll.Token {
	return netpoll.Token(index*t.run.stride + k)
}

// connByToken returns the client and the index of the connection an
// event is about.
func (t *thread) connByToken(tok netpoll.Token) (*client, int) {
	n := t.run.stride
	return t.clients[int(tok)/n], int(tok) % n
}

// watchWrite asks the poller for writability while output is pending.
func (t *thread) watchWrite(s *sconn) {
	if s.outOff < len(s.out) && !s.watchWrite && !s.dead() {
		s.watchWrite = true
		_ = t.poll.WatchWrite(s.tr, s.tok, true)
	}
}

// dropConn unregisters and closes a connection.
func (t *thread) dropConn(s *sconn) {
	t.poll.Remove(s.tr)
	_ = s.tr.Close()
}

// openConns opens a client's connections, one per protocol (in a cluster,
// to its node 0). It may block; it registers nothing.
func (r *run) openConns(ctx context.Context, c *client) ([]*conn, error) {
	conns := make([]*conn, len(r.protos))
	for k, p := range r.protos {
		var nc net.Conn
		var d driver.Driver
		var err error
		if p.cluster != nil {
			nc, d, err = c.route.Connect(ctx, r.net.Dial, 0)
		} else {
			nc, d, err = p.open(ctx, r.net.Dial)
		}
		if err == nil {
			var tr netpoll.Stream
			if tr, err = r.net.Take(nc); err == nil {
				conns[k] = newConn(tr, d)
				continue
			}
			nc.Close()
		}
		for _, c := range conns[:k] {
			_ = c.tr.Close()
		}
		return nil, err
	}
	return conns, nil
}

// install gives a client its connections and registers them.
func (t *thread) install(c *client, conns []*conn) error {
	copy(c.conns, conns)
	for k, cn := range conns {
		cn.tok = t.connToken(c.index, k)
		cn.attach(&t.bufs)
		if err := t.poll.Add(cn.tr, cn.tok); err != nil {
			return err
		}
	}
	return nil
}

// connectClient connects a client under -C, blocking the thread as pgbench
// does.
func (t *thread) connectClient(c *client) error {
	conns, err := t.run.openConns(t.run.ctx, c)
	if err != nil {
		return fmt.Errorf("connection for client %d failed: %w", c.id, err)
	}
	return t.install(c, conns)
}
