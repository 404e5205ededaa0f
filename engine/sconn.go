package engine

import (
	"errors"
	"github.com/gbench/gbench/engine/internal/netpoll"
)

// sconn is one server connection of a client as the loop sees it: a
// transport with an input and an output buffer. Both buffers are reused.
type sconn struct {
	tr     netpoll.Stream
	tok    netpoll.Token
	in     []byte // received bytes: in[inOff:] are not decoded yet
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

// pending returns the undecoded input.
func (c *sconn) pending() []byte { return c.in[c.inOff:] }

// consume drops n decoded bytes.
func (c *sconn) consume(n int) {
	c.inOff += n
	if c.inOff == len(c.in) {
		c.in, c.inOff = c.in[:0], 0
	}
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
	want := max(minReadSpace, need-len(c.in)+c.inOff)
	if cap(c.in)-len(c.in) < want {
		grown := make([]byte, len(c.in), len(c.in)+want+len(c.in))
		copy(grown, c.in)
		c.in = grown
	}
	n, err := c.tr.Read(c.in[len(c.in):cap(c.in)])
	switch {
	case errors.Is(err, netpoll.ErrAgain):
		return false
	case err != nil:
		c.err = err
		return false
	}
	c.in = c.in[:len(c.in)+n]
	return n > 0
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
func (c *sconn) inputReady() bool { return c.inOff < len(c.in) || c.err != nil }

// dead reports whether the connection failed.
func (c *sconn) dead() bool { return c.err != nil }
