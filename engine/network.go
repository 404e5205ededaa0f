package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
)

// Transport selects how the threads drive their sockets.
type Transport uint8

const (
	// TransportAuto is the fastest one the platform has: io_uring on
	// Linux where the kernel allows it, else epoll; portable elsewhere.
	TransportAuto Transport = iota
	// TransportEpoll: each thread's loop reads and writes non-blocking
	// sockets itself and waits with epoll. Linux only.
	TransportEpoll
	// TransportPortable: Go's own network poller, on every platform. A
	// goroutine per connection reads into a buffer and wakes its thread's
	// loop over a channel.
	TransportPortable
	// TransportUring: each thread's sends, receives and wait go to the
	// kernel through one io_uring, in one system call per turn of the
	// loop. Linux 5.11 or later, where io_uring is not refused.
	TransportUring
)

// ParseTransport reads a transport's name: "auto" (or empty), "io_uring",
// "epoll" or "portable".
func ParseTransport(s string) (Transport, error) {
	switch s {
	case "", "auto":
		return TransportAuto, nil
	case "io_uring", "uring":
		return TransportUring, nil
	case "epoll":
		return TransportEpoll, nil
	case "portable":
		return TransportPortable, nil
	}
	return 0, fmt.Errorf("invalid transport %q (want auto, io_uring, epoll or portable)", s)
}

func (t Transport) String() string {
	switch t {
	case TransportEpoll:
		return "epoll"
	case TransportPortable:
		return "portable"
	case TransportUring:
		return "io_uring"
	}
	return "auto"
}

// TransportFromEnv returns the transport GBENCH_TRANSPORT names, for
// commands and tests that let the environment choose.
func TransportFromEnv(getenv func(string) string) (Transport, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	t, err := ParseTransport(getenv("GBENCH_TRANSPORT"))
	if err != nil {
		return 0, fmt.Errorf("GBENCH_TRANSPORT: %w", err)
	}
	return t, nil
}

// errAgain means a non-blocking read or write would block.
var errAgain = errors.New("would block")

// transport is a connection's byte stream as a thread's loop drives it.
// read never blocks: it returns errAgain when nothing is buffered. write
// may send part of p and return errAgain; the loop then watches for
// writability. Only the thread's goroutine calls them.
type transport interface {
	read(p []byte) (int, error)
	write(p []byte) (int, error)
	close() error
	// drains reports whether reads must go on until errAgain: a transport
	// that buffers internally (TLS, the portable reader) may hold data the
	// poller will not report again.
	drains() bool
}

// token identifies a client's connection in a poller's events.
type token uint32

// event is a connection's readiness.
type event struct {
	tok     token
	in, out bool
}

// poller is a thread's wait for its connections' input, its next timer,
// and wake-ups from other goroutines.
type poller interface {
	// add registers a connection's transport under tok.
	add(tr transport, tok token) error
	// remove unregisters it; it is called before the transport closes.
	remove(tr transport)
	// watchWrite starts or stops watching for writability.
	watchWrite(tr transport, tok token, on bool) error
	// wait blocks until an event, until deadline (on the thread clock,
	// whose current time is now), or until wake. deadline < 0 means no
	// deadline; deadline <= now does not block. The events are valid until
	// the next call.
	wait(deadline, now int64) ([]event, error)
	// wake interrupts a wait; any goroutine may call it.
	wake()
	close()
}

// network is one way to drive sockets: how they are dialed, taken over
// after the drivers' setup, and waited on.
type network interface {
	// dial opens the sockets drivers set up (TLS, authentication).
	dial(ctx context.Context, network, addr string) (net.Conn, error)
	// take turns a connected net.Conn into a transport; on failure the
	// caller still owns c.
	take(c net.Conn) (transport, error)
	newPoller(conns int) (poller, error)
	// lockThread reports whether a loop should keep its OS thread.
	lockThread() bool
}

// networkFor returns the implementation of t on this platform, and the
// transport it is.
func networkFor(t Transport) (network, Transport, error) {
	t, _, err := ResolveTransport(t)
	if err != nil {
		return nil, 0, err
	}
	var n network
	switch t {
	case TransportUring:
		n, err = uringNetwork()
	case TransportEpoll:
		n, err = epollNetwork()
	default:
		n = portableNetwork{}
	}
	return n, t, err
}

// ResolveTransport returns the transport a run with t uses here. For
// TransportAuto, why is set when a faster transport was refused (an old
// kernel, io_uring disabled by sysctl or by a container's seccomp
// profile): it names the one refused and the reason. A transport asked for
// by name that cannot run here is an error.
func ResolveTransport(t Transport) (_ Transport, why string, err error) {
	switch t {
	case TransportUring:
		if _, err := uringNetwork(); err != nil {
			return 0, "", err
		}
		return t, "", nil
	case TransportEpoll:
		if _, err := epollNetwork(); err != nil {
			return 0, "", err
		}
		return t, "", nil
	case TransportPortable:
		return t, "", nil
	}
	uerr := error(nil)
	if _, uerr = uringNetwork(); uerr == nil {
		return TransportUring, "", nil
	}
	if _, err := epollNetwork(); err == nil {
		return TransportEpoll, uerr.Error(), nil
	}
	return TransportPortable, "", nil
}
