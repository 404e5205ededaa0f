package netpoll

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// epollNet drives connections the way pgbench does: each thread's loop
// reads and writes non-blocking sockets itself and waits for all of them
// with one epoll set. Sockets are dialed as switchConns, ordinary Go
// connections during the drivers' setup, and switched to raw non-blocking
// use on a duplicate of their descriptor when the engine takes them over
// (under TLS too: crypto/tls then runs on top of the switched socket).
type epollNet struct{}

func Epoll() (Network, error) { return epollNet{}, nil }

func (epollNet) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &switchConn{Conn: c, fd: -1}, nil
}

func (epollNet) Take(c net.Conn) (Stream, error) {
	switch v := c.(type) {
	case *switchConn:
		if err := v.goRaw(); err != nil {
			return nil, err
		}
		return &fdTransport{sw: v}, nil
	case *tls.Conn:
		nc := v.NetConn()
		if _, ok := nc.(*switchConn); !ok {
			// A driver's wrapper under TLS; the switchConn itself
			// also says what it wraps, which must not be unwrapped.
			if u, ok := nc.(interface{ NetConn() net.Conn }); ok {
				nc = u.NetConn()
			}
		}
		if sw, ok := nc.(*switchConn); ok {
			if err := sw.goRaw(); err != nil {
				return nil, err
			}
			return &tlsTransport{c: v, sw: sw}, nil
		}
	}
	return nil, fmt.Errorf("the epoll transport cannot drive a %T connection that it did not dial", c)
}

func (epollNet) NewPoller(conns int) (Poller, error) { return newEpoller(conns) }

// LockThread is true: a loop is one OS thread, as a pgbench thread is.
func (epollNet) LockThread() bool { return true }

// fdTransport is a non-blocking socket.
type fdTransport struct{ sw *switchConn }

func (t *fdTransport) Drains() bool { return false }

func (t *fdTransport) Read(p []byte) (int, error) {
	n, err := t.sw.readRaw(p)
	if err == errWouldBlock {
		return 0, ErrAgain
	}
	return n, err
}

func (t *fdTransport) Write(p []byte) (int, error) {
	n, err := rawSend(t.sw.fd, p)
	if err == unix.EAGAIN {
		return 0, ErrAgain
	}
	return n, err
}

func (t *fdTransport) Close() error { return t.sw.Close() }

// tlsTransport drives a TLS connection over a switched socket.
type tlsTransport struct {
	c  *tls.Conn
	sw *switchConn
}

// Read decrypts what is available; a TLS connection may hold decrypted
// data or whole records after a read, so callers drain it until ErrAgain.
func (t *tlsTransport) Read(p []byte) (int, error) {
	n, err := t.c.Read(p)
	switch {
	case n > 0:
		return n, nil
	case err == errWouldBlock, err == nil:
		return 0, ErrAgain
	}
	return 0, err
}

// Write writes whole TLS records: the switched socket waits for room.
func (t *tlsTransport) Write(p []byte) (int, error) { return t.c.Write(p) }

func (t *tlsTransport) Close() error { return t.sw.Close() }

func (t *tlsTransport) Drains() bool { return true }

// sockFD returns the socket a Stream reads.
func sockFD(tr Stream) int {
	switch t := tr.(type) {
	case *fdTransport:
		return t.sw.fd
	case *tlsTransport:
		return t.sw.fd
	}
	return -1
}

// epoller waits with epoll. Connections are registered level-triggered;
// every readable socket is drained into its buffer, so a socket nobody
// waits on does not wake the loop twice. An eventfd carries wake-ups, and
// a timerfd the deadline, to the nanosecond.
type epoller struct {
	epfd   int
	wakeFD *wakeFD
	timeFD int
	armed  int64 // the deadline timeFD is set for; -1 when none
	raw    []unix.EpollEvent
	events []Event
}

// Reserved tokens: client connections use small ones.
const (
	wakeToken  = Token(^uint32(0))
	timerToken = wakeToken - 1
)

func newEpoller(conns int) (_ *epoller, err error) {
	p := &epoller{epfd: -1, timeFD: -1, armed: -1,
		raw: make([]unix.EpollEvent, conns+2), events: make([]Event, 0, conns+2)}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if p.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return nil, err
	}
	if p.wakeFD, err = newWakeFD(); err != nil {
		return nil, err
	}
	if p.timeFD, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		return nil, err
	}
	if err = p.ctl(unix.EPOLL_CTL_ADD, p.wakeFD.fd, wakeToken, unix.EPOLLIN); err != nil {
		return nil, err
	}
	// Edge-triggered: each expiry is reported once, and arming the timer
	// again resets it, so it is never read.
	if err = p.ctl(unix.EPOLL_CTL_ADD, p.timeFD, timerToken, unix.EPOLLIN|unix.EPOLLET); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *epoller) ctl(op, fd int, tok Token, events uint32) error {
	ev := unix.EpollEvent{Events: events, Fd: int32(tok)}
	return unix.EpollCtl(p.epfd, op, fd, &ev)
}

const readEvents = unix.EPOLLIN | unix.EPOLLRDHUP

func (p *epoller) Add(tr Stream, tok Token) error {
	return p.ctl(unix.EPOLL_CTL_ADD, sockFD(tr), tok, readEvents)
}

func (p *epoller) Remove(tr Stream) {
	_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, sockFD(tr), nil)
}

func (p *epoller) WatchWrite(tr Stream, tok Token, on bool) error {
	events := uint32(readEvents)
	if on {
		events |= unix.EPOLLOUT
	}
	return p.ctl(unix.EPOLL_CTL_MOD, sockFD(tr), tok, events)
}

// Wait is a raw epoll_pwait (rawEpollWait says why that is both cheap
// and safe); a deadline is kept to the nanosecond by the timerfd.
func (p *epoller) Wait(deadline, now int64) ([]Event, error) {
	ms := -1
	switch {
	case deadline >= 0 && deadline <= now:
		ms = 0
	case deadline >= 0 && deadline != p.armed:
		if err := p.arm(time.Duration(deadline - now)); err != nil {
			return nil, err
		}
		p.armed = deadline
	}
	n, err := rawEpollWait(p.epfd, p.raw, ms)
	if err == unix.EINTR {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p.events = p.events[:0]
	for i := range p.raw[:n] {
		ev := &p.raw[i]
		switch tok := Token(ev.Fd); tok {
		case wakeToken:
			p.drainWake()
		case timerToken:
			p.armed = -1
		default:
			p.events = append(p.events, Event{
				Tok: tok,
				In:  ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0,
				Out: ev.Events&unix.EPOLLOUT != 0,
			})
		}
	}
	return p.events, nil
}

// arm sets the timer to expire after d.
func (p *epoller) arm(d time.Duration) error {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(max(d, 1)))}
	return unix.TimerfdSettime(p.timeFD, 0, &spec, nil)
}

func (p *epoller) Wake() {
	p.wakeFD.signal()
}

func (p *epoller) drainWake() {
	p.wakeFD.drain()
}

func (p *epoller) Close() {
	if p.wakeFD != nil {
		p.wakeFD.Close()
	}
	for _, fd := range []int{p.timeFD, p.epfd} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}
