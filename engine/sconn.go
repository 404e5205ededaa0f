package engine

import (
	"errors"

	"github.com/gbench/gbench/engine/internal/netpoll"
)

// sconn is one server connection of a client as the loop sees it: a
// transport with an input and an output buffer.
//
// An idle connection holds no input buffer. When its transport lets
// replies be decoded where they landed (netpoll.Viewer: io_uring's
// provided buffers), they are, and only the part of a reply that did not
// arrive whole is copied, into a buffer borrowed from the thread's pool;
// other transports read into a borrowed buffer. A buffer goes back to the
// pool once its input is decoded, so a thread holds about as many as it
// has connections with a reply half read, not one per connection.
type sconn struct {
	tr     netpoll.Stream
	tok    netpoll.Token
	view   netpoll.Viewer // tr, when its input is decoded in place; else nil
	pool   *bufPool       // the thread's input buffers; nil: in is the connection's own
	in     []byte         // received bytes: in[inOff:] are not decoded yet
	inOff  int
	out    []byte // bytes to send: out[outOff:] are not sent yet
	outOff int
	// watchWrite is set while the poller watches for writability because
	// the last write was partial.
	watchWrite bool
	err        error // a read or write failed; the connection is dead
	// need is how many undecoded bytes the decoder wants at least, so that
	// a large reply makes the buffer grow once.
	need int
}

const minReadSpace = 16 << 10

// bufPool is a thread's spare input buffers. Only the thread's loop uses
// it. Buffers keep their size: one grown for a large reply serves the
// next large reply too.
type bufPool struct{ free [][]byte }

// get returns an empty buffer.
func (p *bufPool) get() []byte {
	if k := len(p.free); k > 0 {
		b := p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
		return b
	}
	return make([]byte, 0, minReadSpace)
}

func (p *bufPool) put(b []byte) { p.free = append(p.free, b[:0]) }

// attach makes the connection borrow its input buffers from pool and
// decode in place when its transport allows.
func (c *sconn) attach(pool *bufPool) {
	c.pool = pool
	c.view, _ = c.tr.(netpoll.Viewer)
}

// pending returns the undecoded input: the copied part if any, else what
// the transport holds in place.
func (c *sconn) pending() []byte {
	if c.inOff < len(c.in) || c.view == nil {
		return c.in[c.inOff:]
	}
	return c.view.View()
}

// consume drops n decoded bytes of pending. The bytes stay readable until
// the loop's next wait or the next fill of any of the thread's
// connections, whichever comes first.
func (c *sconn) consume(n int) {
	if c.inOff < len(c.in) {
		c.inOff += n
		if c.inOff == len(c.in) {
			c.release()
		}
		return
	}
	if n > 0 {
		c.view.Discard(n)
	}
}

// release gives back an input buffer that is all decoded.
func (c *sconn) release() {
	c.inOff = 0
	if c.pool == nil {
		c.in = c.in[:0]
		return
	}
	if c.in != nil {
		c.pool.put(c.in)
		c.in = nil
	}
}

// arrived takes in what the transport announced: nothing to do when it is
// decoded in place, else read until the decoder's need is met (or until
// the transport is drained, for one that must be).
func (c *sconn) arrived() {
	if c.view != nil && c.inOff == len(c.in) && len(c.view.View()) > 0 {
		return
	}
	drains := c.tr.Drains()
	for c.fill(c.need) && (drains || len(c.pending()) < c.need) {
	}
}

// short records that the decoder wants need bytes and could not finish
// with pending. Decoded in place, the partial reply moves into a buffer,
// with everything else the transport holds (it may have the rest, in its
// next buffers, and will not announce it again). It reports whether
// pending grew, or the connection turned out dead: the decoder should
// try again.
func (c *sconn) short(need int) bool {
	c.need = need
	if c.view == nil || c.inOff < len(c.in) {
		return false
	}
	before := len(c.view.View())
	if before == 0 {
		return false
	}
	for c.fill(need) {
	}
	return len(c.pending()) > before || c.err != nil
}

// fill reads what the socket has, once. It reports whether bytes arrived.
// A closed or broken connection sets c.err.
func (c *sconn) fill(need int) bool {
	if c.err != nil {
		return false
	}
	if c.inOff > 0 && cap(c.in)-len(c.in) < minReadSpace {
		c.in = c.in[:copy(c.in, c.in[c.inOff:])]
		c.inOff = 0
	}
	if c.in == nil && c.pool != nil {
		c.in = c.pool.get()
	}
	want := max(minReadSpace, need-len(c.in)+c.inOff)
	if cap(c.in)-len(c.in) < want {
		grown := make([]byte, len(c.in), len(c.in)+want+len(c.in))
		copy(grown, c.in)
		c.in = grown
	}
	n, err := c.tr.Read(c.in[len(c.in):cap(c.in)])
	c.in = c.in[:len(c.in)+n]
	switch {
	case n > 0:
		return true
	case errors.Is(err, netpoll.ErrAgain):
	case err != nil:
		c.err = err
	}
	if c.inOff == len(c.in) {
		c.release()
	}
	return false
}

// flush writes pending output; it reports whether everything was sent.
func (c *sconn) flush() (bool, error) {
	for c.outOff < len(c.out) {
		n, err := c.tr.Write(c.out[c.outOff:])
		c.outOff += n
		if errors.Is(err, netpoll.ErrAgain) {
			return false, nil
		}
		if err != nil {
			c.err = err
			return false, err
		}
	}
	c.out, c.outOff = c.out[:0], 0
	return true, nil
}

// inputReady reports whether the loop will not tell of what there is to
// read: input arrived while the client did not wait for it (a server's
// FATAL message before it closed the connection), or the connection is
// already known dead. A client that starts to wait then decodes at once.
func (c *sconn) inputReady() bool {
	return c.inOff < len(c.in) || c.err != nil || c.view != nil && len(c.view.View()) > 0
}

// dead reports whether the connection failed.
func (c *sconn) dead() bool { return c.err != nil }
