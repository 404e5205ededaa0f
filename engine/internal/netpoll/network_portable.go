package netpoll

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// portableNetwork drives connections through Go's own network poller, on
// every platform. Each connection has a reader goroutine that blocks in
// Read and appends what arrives to a buffer, then sends the connection's
// Token to its thread's loop over a channel; the loop copies the buffer
// out without blocking. Writes go straight from the loop: a full socket
// parks the loop's goroutine in Go's Poller until the server reads, while
// the reader goroutine keeps draining the server's replies, so a pipeline
// of any size cannot deadlock. The loop waits in a select on the channel,
// a timer and a wake-up channel.
type portableNetwork struct{}

func (portableNetwork) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (portableNetwork) Take(c net.Conn) (Stream, error) {
	return &goConn{c: c, done: make(chan struct{})}, nil
}

func (portableNetwork) NewPoller(conns int) (Poller, error) {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &chanPoller{
		// Each live connection has at most one Token in flight; a closed
		// one stops sending (see goConn.notify).
		ready:  make(chan Token, conns+1),
		wakeCh: make(chan struct{}, 1),
		timer:  t,
		armed:  -1,
	}, nil
}

// LockThread is false: a loop that waits on channels is best left to Go's
// scheduler.
func (portableNetwork) LockThread() bool { return false }

// goConn is a connection read by its own goroutine.
type goConn struct {
	c net.Conn

	mu  sync.Mutex
	buf []byte // received, not yet taken by the loop
	err error  // the reader stopped on this error

	// notified is set while a Token is in flight, so that each connection
	// has at most one in the channel.
	notified atomic.Bool
	ready    chan<- Token
	tok      Token
	done     chan struct{} // closed by close: the reader must not send
	closed   bool
}

// start runs the reader; input is announced on ready.
func (g *goConn) start(ready chan<- Token, tok Token) {
	g.ready, g.tok = ready, tok
	go g.readLoop()
}

func (g *goConn) readLoop() {
	b := make([]byte, minReadSpace)
	for {
		n, err := g.c.Read(b)
		g.mu.Lock()
		g.buf = append(g.buf, b[:n]...)
		if err != nil {
			g.err = err
		}
		g.mu.Unlock()
		g.notify()
		if err != nil {
			return
		}
	}
}

func (g *goConn) notify() {
	if g.notified.Swap(true) {
		return
	}
	select {
	case g.ready <- g.tok:
	case <-g.done:
	}
}

// Read takes what the reader has buffered. The flag is cleared before the
// buffer is looked at: input appended after that sends a new Token.
func (g *goConn) Read(p []byte) (int, error) {
	g.notified.Store(false)
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.buf) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		return 0, ErrAgain
	}
	n := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[n:])]
	return n, nil
}

// Write sends all of p, parking the goroutine while the socket is full.
func (g *goConn) Write(p []byte) (int, error) { return g.c.Write(p) }

func (g *goConn) Close() error {
	if g.closed {
		return nil
	}
	g.closed = true
	close(g.done)
	return g.c.Close()
}

func (g *goConn) Drains() bool { return true }

// chanPoller waits for the tokens of connections with input.
type chanPoller struct {
	ready  chan Token
	wakeCh chan struct{}
	timer  *time.Timer
	armed  int64 // the deadline the timer is set for, -1 when stopped
	events []Event
}

var errNotPortable = errors.New("the portable transport cannot drive this connection")

func (p *chanPoller) Add(tr Stream, tok Token) error {
	g, ok := tr.(*goConn)
	if !ok {
		return errNotPortable
	}
	g.start(p.ready, tok)
	return nil
}

func (p *chanPoller) Remove(Stream) {}

// WatchWrite has nothing to do: writes complete before they return.
func (p *chanPoller) WatchWrite(Stream, Token, bool) error { return nil }

func (p *chanPoller) Wait(deadline, now int64) ([]Event, error) {
	p.events = p.events[:0]
	switch {
	case deadline >= 0 && deadline <= now:
		select {
		case tok := <-p.ready:
			p.push(tok)
		case <-p.wakeCh:
		default:
		}
	case deadline < 0:
		select {
		case tok := <-p.ready:
			p.push(tok)
		case <-p.wakeCh:
		}
	default:
		if deadline != p.armed {
			p.timer.Reset(time.Duration(deadline - now))
			p.armed = deadline
		}
		select {
		case tok := <-p.ready:
			p.push(tok)
		case <-p.wakeCh:
		case <-p.timer.C:
			p.armed = -1
		}
	}
	for len(p.events) < cap(p.ready) {
		select {
		case tok := <-p.ready:
			p.push(tok)
		default:
			return p.events, nil
		}
	}
	return p.events, nil
}

func (p *chanPoller) push(tok Token) {
	p.events = append(p.events, Event{Tok: tok, In: true})
}

func (p *chanPoller) Wake() {
	select {
	case p.wakeCh <- struct{}{}:
	default:
	}
}

func (p *chanPoller) Close() { p.timer.Stop() }

// Portable returns the portable network, which runs everywhere.
func Portable() Network { return portableNetwork{} }
