// Package netpoll is the network stack below the engine: how a thread's
// event loop dials, takes over and waits on its sockets. A Network is one
// way to do it (Epoll and Uring on Linux, Portable everywhere); it turns
// a connected net.Conn into a Stream, which never blocks, and gives each
// thread a Poller that waits for input, a deadline or a wake-up.
//
// Only the goroutine of the thread that owns a Stream or a Poller calls
// it, except Poller.Wake, which any goroutine may call. The package knows
// nothing of drivers, scripts or statistics.
package netpoll

import (
	"context"
	"errors"
	"net"
)

// minReadSpace is the portable reader's buffer, the engine's minimum read
// space too.
const minReadSpace = 16 << 10

// ErrAgain means a non-blocking read or write would block.
var ErrAgain = errors.New("would block")

// Stream is a connection's byte stream as a thread's loop drives it.
// Read never blocks: it returns ErrAgain when nothing is buffered. write
// may send part of p and return ErrAgain; the loop then watches for
// writability. Only the thread's goroutine calls them.
type Stream interface {
	Read(p []byte) (int, error)
	Write(p []byte) (int, error)
	Close() error
	// Drains reports whether reads must go on until ErrAgain: a Stream
	// that buffers internally (TLS, the portable reader) may hold data the
	// Poller will not report again.
	Drains() bool
}

// Viewer is a Stream whose received bytes can be decoded where they
// landed, without a copy into the caller's buffer. View returns what Read
// would return first (possibly only part of what is received); Discard
// drops the first n bytes of it. The bytes View returned stay valid, even
// once discarded, until the next Poller.Wait: a decoded reply may point
// into them until then.
type Viewer interface {
	View() []byte
	Discard(n int)
}

// Token identifies a client's connection in a Poller's events.
type Token uint32

// Event is a connection's readiness.
type Event struct {
	Tok     Token
	In, Out bool // readable (or closed by the peer), writable
}

// Poller is a thread's wait for its connections' input, its next timer,
// and wake-ups from other goroutines.
type Poller interface {
	// Add registers a connection's Stream under tok.
	Add(tr Stream, tok Token) error
	// Remove unregisters it; it is called before the Stream closes.
	Remove(tr Stream)
	// WatchWrite starts or stops watching for writability.
	WatchWrite(tr Stream, tok Token, on bool) error
	// Wait blocks until an event, until deadline (on the thread clock,
	// whose current time is now), or until wake. deadline < 0 means no
	// deadline; deadline <= now does not block. The events are valid until
	// the next call.
	Wait(deadline, now int64) ([]Event, error)
	// Wake interrupts a wait; any goroutine may call it.
	Wake()
	Close()
}

// Network is one way to drive sockets: how they are dialed, taken over
// after the drivers' setup, and waited on.
type Network interface {
	// Dial opens the sockets drivers set up (TLS, authentication).
	Dial(ctx context.Context, network, addr string) (net.Conn, error)
	// Take turns a connected net.Conn into a Stream; on failure the
	// caller still owns c.
	Take(c net.Conn) (Stream, error)
	NewPoller(conns int) (Poller, error)
	// LockThread reports whether a loop should keep its OS thread.
	LockThread() bool
}
