package engine

import (
	"fmt"
	"github.com/gbench/gbench/engine/internal/netpoll"
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

// networkFor returns the implementation of t on this platform, and the
// transport it is.
func networkFor(t Transport) (netpoll.Network, Transport, error) {
	t, _, err := ResolveTransport(t)
	if err != nil {
		return nil, 0, err
	}
	var n netpoll.Network
	switch t {
	case TransportUring:
		n, err = netpoll.Uring()
	case TransportEpoll:
		n, err = netpoll.Epoll()
	default:
		n = netpoll.Portable()
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
		if _, err := netpoll.Uring(); err != nil {
			return 0, "", err
		}
		return t, "", nil
	case TransportEpoll:
		if _, err := netpoll.Epoll(); err != nil {
			return 0, "", err
		}
		return t, "", nil
	case TransportPortable:
		return t, "", nil
	}
	uerr := error(nil)
	if _, uerr = netpoll.Uring(); uerr == nil {
		return TransportUring, "", nil
	}
	if _, err := netpoll.Epoll(); err == nil {
		return TransportEpoll, uerr.Error(), nil
	}
	return TransportPortable, "", nil
}
