package engine

import (
	"context"
	"fmt"

	"github.com/gbench/gbench/engine/pgsql"
)

// Connection tokens identify a client's connection in poller events.
const (
	tokenSQL  = 0
	tokenRESP = 1
)

func clientToken(index, kind int) uint64 { return uint64(index)<<1 | uint64(kind) }

// connByToken returns the connection an event is about.
func (c *client) connByToken(tok uint64) (*sconn, waitOn) {
	if tok&1 == tokenSQL {
		if c.pg == nil {
			return nil, waitNone
		}
		return &c.pg.sconn, waitSQL
	}
	if c.rs == nil {
		return nil, waitNone
	}
	return &c.rs.sconn, waitRESP
}

// waitsFor reports whether the client waits for input on a connection.
func (c *client) waitsFor(kind waitOn) bool {
	switch c.state {
	case stWaitResult, stWaitPrepare, stWaitDiscard, stWaitRollback:
		return c.wait == kind || c.wait == waitBoth
	}
	return false
}

// watchWrite asks the poller for writability while output is pending.
func (t *thread) watchWrite(s *sconn) {
	if s.outOff < len(s.out) && !s.watchWrite && !s.dead() {
		s.watchWrite = true
		_ = t.poll.modify(s.tr.fd(), s.token, true)
	}
}

// dropConn unregisters and closes a connection.
func (t *thread) dropConn(s *sconn) {
	t.poll.remove(s.tr.fd())
	_ = s.tr.close()
}

// attach registers a connection's transport with the thread's poller.
func (t *thread) attach(s *sconn, index, kind int) error {
	s.token = clientToken(index, kind)
	return t.poll.add(s.tr.fd(), s.token, false)
}

// openConns opens a client's connections: SQL when the program has SQL,
// RESP when it has \resp commands. It may block; it registers nothing.
func (r *run) openConns(ctx context.Context, c *client) (*pgConn, *respConn, error) {
	var pg *pgConn
	var rs *respConn
	if r.cfg.Program.HasSQL {
		conn, err := r.cfg.SQL.Connect(ctx, dial)
		if err != nil {
			return nil, nil, err
		}
		tr, err := newTransport(conn.Net)
		if err != nil {
			conn.Net.Close()
			return nil, nil, err
		}
		s := pgsql.NewSession(r.cfg.Program.Mode, r.cfg.Program.NumSQL, conn.TxStatus)
		s.Notice = r.notice
		pg = &pgConn{sconn: sconn{tr: tr}, s: s}
	}
	if r.cfg.Program.HasRESP {
		conn, err := r.cfg.RESP.Connect(ctx, dial)
		if err != nil {
			if pg != nil {
				pg.tr.close()
			}
			return nil, nil, err
		}
		tr, err := newTransport(conn)
		if err != nil {
			conn.Close()
			if pg != nil {
				pg.tr.close()
			}
			return nil, nil, err
		}
		rs = &respConn{sconn: sconn{tr: tr}}
	}
	return pg, rs, nil
}

// install gives a client its connections and registers them.
func (t *thread) install(c *client, index int, pg *pgConn, rs *respConn) error {
	c.pg, c.rs = pg, rs
	if pg != nil {
		if err := t.attach(&pg.sconn, index, tokenSQL); err != nil {
			return err
		}
	}
	if rs != nil {
		if err := t.attach(&rs.sconn, index, tokenRESP); err != nil {
			return err
		}
	}
	return nil
}

// connectClient connects a client under -C, blocking the thread as pgbench
// does.
func (t *thread) connectClient(c *client) error {
	pg, rs, err := t.run.openConns(t.run.ctx, c)
	if err != nil {
		return fmt.Errorf("connection for client %d failed: %w", c.id, err)
	}
	return t.install(c, c.index, pg, rs)
}

func (r *run) notice(severity, message string) {
	r.printf("%s:  %s\n", severity, message)
}
