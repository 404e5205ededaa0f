package engine

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"syscall"
)

// errAgain means a non-blocking read or write would block.
var errAgain = errors.New("would block")

// transport is a connection's byte stream as the event loop drives it:
// reads and writes never block.
type transport interface {
	fd() int // registered with the poller
	read(p []byte) (int, error)
	write(p []byte) (int, error)
	close() error
	// drains reports whether reads must go on until errAgain: a transport
	// that buffers internally (TLS) may hold data the poller cannot see.
	drains() bool
}

// newTransport takes over a connected net.Conn. A plain TCP or unix socket
// is used directly through its file descriptor; anything else (TLS) goes
// through a pump goroutine.
func newTransport(c net.Conn) (transport, error) {
	switch v := c.(type) {
	case *switchConn:
		if err := v.goRaw(); err != nil {
			return nil, err
		}
		return &rawTransport{sock: v.fd, sw: v}, nil
	case *tls.Conn:
		if sw, ok := v.NetConn().(*switchConn); ok {
			if err := sw.goRaw(); err != nil {
				return nil, err
			}
			return &tlsTransport{c: v, sw: sw}, nil
		}
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return newPump(c)
	}
	switch c.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return newPump(c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var derr error
	if err := raw.Control(func(s uintptr) { fd, derr = syscall.Dup(int(s)) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	syscall.CloseOnExec(fd)
	c.Close() // the duplicate keeps the socket open, outside Go's poller
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return &rawTransport{sock: fd}, nil
}

// rawTransport is a non-blocking socket.
type rawTransport struct {
	sock int
	sw   *switchConn // owner of the socket, when it came from dial
}

func (t *rawTransport) drains() bool { return false }

func (t *rawTransport) fd() int { return t.sock }

func (t *rawTransport) read(p []byte) (int, error) {
	n, err := rawRead(t.sock, p)
	switch {
	case err == syscall.EAGAIN:
		return 0, errAgain
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

func (t *rawTransport) write(p []byte) (int, error) {
	n, err := rawWrite(t.sock, p)
	if err == syscall.EAGAIN {
		return 0, errAgain
	}
	if n < 0 {
		n = 0
	}
	return n, err
}

func (t *rawTransport) close() error {
	if t.sw != nil {
		return t.sw.Close()
	}
	return syscall.Close(t.sock)
}

// pump drives a net.Conn that has no usable descriptor (TLS): a goroutine
// reads into a buffer and signals the loop through a pipe.
type pump struct {
	c      net.Conn
	mu     sync.Mutex
	buf    []byte
	err    error
	sigR   int
	sigW   int
	closed bool
}

func newPump(c net.Conn) (*pump, error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		return nil, err
	}
	p := &pump{c: c, sigR: fds[0], sigW: fds[1]}
	go p.loop()
	return p, nil
}

func (p *pump) loop() {
	b := make([]byte, 64<<10)
	for {
		n, err := p.c.Read(b)
		p.mu.Lock()
		p.buf = append(p.buf, b[:n]...)
		if err != nil {
			p.err = err
		}
		closed := p.closed
		p.mu.Unlock()
		if !closed {
			_, _ = syscall.Write(p.sigW, []byte{1})
		}
		if err != nil {
			return
		}
	}
}

func (p *pump) fd() int { return p.sigR }

func (p *pump) drains() bool { return true }

func (p *pump) read(dst []byte) (int, error) {
	var sink [64]byte
	for {
		if n, _ := syscall.Read(p.sigR, sink[:]); n <= 0 {
			break
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.buf) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		return 0, errAgain
	}
	n := copy(dst, p.buf)
	p.buf = p.buf[:copy(p.buf, p.buf[n:])]
	return n, nil
}

func (p *pump) write(b []byte) (int, error) { return p.c.Write(b) }

func (p *pump) close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	err := p.c.Close()
	syscall.Close(p.sigR)
	syscall.Close(p.sigW)
	return err
}
