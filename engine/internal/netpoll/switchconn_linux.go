package netpoll

import (
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// switchConn is a net.Conn that reads and writes through Go's network
// Poller until goRaw, then through a duplicate of its socket without
// blocking: a read with no data returns errWouldBlock, a temporary
// net.Error, which crypto/tls passes up without breaking the connection.
type switchConn struct {
	net.Conn
	fd int // the raw socket after goRaw, -1 before, -2 once closed
}

// NetConn returns the socket, so that a connector can set its options.
func (c *switchConn) NetConn() net.Conn { return c.Conn }

// wouldBlock is the temporary error of an empty non-blocking read.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "would block" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }

var errWouldBlock net.Error = wouldBlock{}

// goRaw takes the socket away from Go's Poller: the engine keeps a
// non-blocking duplicate and closes the original.
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
	fd := -1
	var derr error
	if err := raw.Control(func(f uintptr) {
		fd, derr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return err
	}
	if derr != nil {
		return derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return err
	}
	s.Conn.Close() // the duplicate keeps the socket open
	s.fd = fd
	return nil
}

// readRaw reads what the socket holds; errWouldBlock when nothing, io.EOF
// when the peer closed.
func (s *switchConn) readRaw(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, err := rawRead(s.fd, p)
	switch {
	case err == unix.EAGAIN:
		return 0, errWouldBlock
	case err != nil:
		return 0, err
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (s *switchConn) Read(p []byte) (int, error) {
	if s.fd < 0 {
		return s.Conn.Read(p)
	}
	return s.readRaw(p)
}

// Write writes everything, waiting for the socket when it is full: TLS
// records must be written whole.
func (s *switchConn) Write(p []byte) (int, error) {
	if s.fd < 0 {
		return s.Conn.Write(p)
	}
	done := 0
	for done < len(p) {
		n, err := rawSend(s.fd, p[done:])
		switch {
		case err == unix.EAGAIN:
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

// waitWritable blocks until fd can be written, in poll(2): an ordinary
// blocking system call, so the runtime runs other goroutines meanwhile.
func waitWritable(fd int) error {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	for {
		_, err := unix.Poll(fds, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

func (s *switchConn) Close() error {
	if s.fd == -1 {
		return s.Conn.Close()
	}
	fd := s.fd
	s.fd = -2
	if fd < 0 {
		return nil
	}
	return unix.Close(fd)
}

// Deadlines only apply during setup: the loop never blocks on a read.

func (s *switchConn) SetDeadline(t time.Time) error {
	if s.fd != -1 {
		return nil
	}
	return s.Conn.SetDeadline(t)
}

func (s *switchConn) SetReadDeadline(t time.Time) error {
	if s.fd != -1 {
		return nil
	}
	return s.Conn.SetReadDeadline(t)
}

func (s *switchConn) SetWriteDeadline(t time.Time) error {
	if s.fd != -1 {
		return nil
	}
	return s.Conn.SetWriteDeadline(t)
}
