package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"
)

// DialFunc opens a network connection; drivers use it for their setup
// (TLS, authentication) so that the engine can take the socket over after.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// dial opens a connection that starts as an ordinary Go connection (with
// deadlines and cancellation for the setup exchange) and can later be
// switched to raw non-blocking use by the event loop, also underneath TLS.
func dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &switchConn{Conn: c, fd: -1}, nil
}

// switchConn is a net.Conn that reads and writes through Go's network
// poller until goRaw, then through a duplicate of its socket without
// blocking: a read with no data returns errWouldBlock, a temporary
// net.Error, which crypto/tls passes up without breaking the connection.
type switchConn struct {
	net.Conn
	fd int // the raw socket after goRaw, -1 before
}

// wouldBlock is the temporary error of an empty non-blocking read.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "would block" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }

var errWouldBlock net.Error = wouldBlock{}

// goRaw takes the socket away from Go's poller.
func (s *switchConn) goRaw() error {
	if s.fd >= 0 {
		return nil
	}
	sc, ok := s.Conn.(syscall.Conn)
	if !ok {
		return errors.New("connection has no socket")
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var fd int
	var derr error
	if err := raw.Control(func(f uintptr) { fd, derr = syscall.Dup(int(f)) }); err != nil {
		return err
	}
	if derr != nil {
		return derr
	}
	syscall.CloseOnExec(fd)
	s.Conn.Close() // the duplicate keeps the socket open
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return err
	}
	s.fd = fd
	return nil
}

func (s *switchConn) Read(p []byte) (int, error) {
	if s.fd < 0 {
		return s.Conn.Read(p)
	}
	n, err := rawRead(s.fd, p)
	switch {
	case err == syscall.EAGAIN:
		return 0, errWouldBlock
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes everything, waiting for the socket when it is full: TLS
// records must be written whole.
func (s *switchConn) Write(p []byte) (int, error) {
	if s.fd < 0 {
		return s.Conn.Write(p)
	}
	done := 0
	for done < len(p) {
		n, err := rawWrite(s.fd, p[done:])
		switch {
		case err == syscall.EAGAIN:
			if err := waitWritable(s.fd); err != nil {
				return done, err
			}
		case err != nil:
			return done, err
		default:
			done += n
		}
	}
	return done, nil
}

func (s *switchConn) Close() error {
	if s.fd < 0 {
		return s.Conn.Close()
	}
	fd := s.fd
	s.fd = -2
	if fd < 0 {
		return nil
	}
	return syscall.Close(fd)
}

func (s *switchConn) SetDeadline(t time.Time) error {
	if s.fd >= 0 {
		return nil
	}
	return s.Conn.SetDeadline(t)
}

func (s *switchConn) SetReadDeadline(t time.Time) error {
	if s.fd >= 0 {
		return nil
	}
	return s.Conn.SetReadDeadline(t)
}

func (s *switchConn) SetWriteDeadline(t time.Time) error {
	if s.fd >= 0 {
		return nil
	}
	return s.Conn.SetWriteDeadline(t)
}

// waitWritable blocks until fd can be written.
func waitWritable(fd int) error {
	type pollfd struct {
		fd             int32
		events, revent int16
	}
	pfd := pollfd{fd: int32(fd), events: 0x4} // POLLOUT
	for {
		_, _, e := syscall.Syscall(syscall.SYS_POLL, uintptr(unsafe.Pointer(&pfd)), 1, 1000)
		if e == 0 || e != syscall.EINTR {
			if e != 0 {
				return e
			}
			return nil
		}
	}
}

// tlsTransport drives a TLS connection over a switched socket.
type tlsTransport struct {
	c  *tls.Conn
	sw *switchConn
}

func (t *tlsTransport) fd() int { return t.sw.fd }

// read decrypts what is available; a TLS connection may hold decrypted
// data or whole records after a read, so callers drain it until errAgain.
func (t *tlsTransport) read(p []byte) (int, error) {
	n, err := t.c.Read(p)
	switch {
	case n > 0:
		return n, nil
	case err == errWouldBlock:
		return 0, errAgain
	case err == nil:
		return 0, errAgain
	}
	return 0, err
}

func (t *tlsTransport) write(p []byte) (int, error) { return t.c.Write(p) }

func (t *tlsTransport) close() error {
	t.sw.Close()
	return nil
}

func (t *tlsTransport) drains() bool { return true }
