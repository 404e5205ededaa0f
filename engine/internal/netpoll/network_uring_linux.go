package netpoll

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/gbench/gbench/engine/internal/netpoll/uring"
)

// uringNet drives a thread's sockets through one io_uring: every send the
// thread's clients queued during a turn of its loop, and a receive for
// every connection that has read what it got, go to the kernel in the same
// io_uring_enter that waits for the next replies. Where the epoll
// transport makes a send, a read and a wait per transaction, this one
// makes one enter per turn of the loop, however many transactions it
// serves. TLS connections, which crypto/tls reads and writes itself, are
// watched for readiness by the ring (multishot poll) and read and written
// like the epoll transport's.
type uringNet struct{}

func (uringNet) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return epollNet{}.Dial(ctx, network, addr)
}

func (uringNet) Take(c net.Conn) (Stream, error) {
	if sw, ok := c.(*switchConn); ok {
		if err := sw.goRaw(); err != nil {
			return nil, err
		}
		return &ringTransport{sw: sw}, nil
	}
	return epollNet{}.Take(c)
}

func (uringNet) NewPoller(conns int) (Poller, error) { return newRingPoller(conns) }

func (uringNet) LockThread() bool { return true }

// Uring returns the io_uring transport, or why this kernel refuses
// it.
func Uring() (Network, error) {
	if err := uringAvailable(); err != nil {
		return nil, fmt.Errorf("io_uring refused: %w", err)
	}
	return uringNet{}, nil
}

// uringAvailable is uringProbe; tests stand in a refusal (RefuseUring).
var uringAvailable = uringProbe

// RefuseUring makes io_uring look refused with err until the returned
// function restores the probe: how auto behaves on a kernel or in a
// container that refuses it. It is a seam for tests, which must not run
// in parallel with others while it is in effect.
func RefuseUring(err error) (restore func()) {
	saved := uringAvailable
	uringAvailable = func() error { return err }
	return func() { uringAvailable = saved }
}

// uringProbe tells, once per process, whether this kernel sets up a ring
// as the transport needs one, and if not, why.
var uringProbe = sync.OnceValue(func() error {
	if x := uint16(1); *(*byte)(unsafe.Pointer(&x)) != 1 {
		// The binding lays out the kernel's structures for
		// little-endian machines (poll masks are swapped on others).
		return errors.New("not implemented on big-endian machines")
	}
	r, err := uring.New(8)
	if err != nil {
		return err
	}
	r.Close()
	return nil
})

// rbufSize is a receive buffer: each connection's own one for
// single-shot receives, or one of the ring's provided buffers.
const rbufSize = 16 << 10

// maxRingBuffers bounds a thread's provided buffers (16 KiB each).
const maxRingBuffers = 1024

// ringBuffers is how many provided buffers a thread of conns connections
// shares: a power of two (the ring's mask), a quarter more than the
// connections up to maxRingBuffers.
func ringBuffers(conns int) int {
	n := 16
	for n < conns+conns/4 && n < maxRingBuffers {
		n *= 2
	}
	return n
}

// ringTransport is a plain socket whose sends and receives go through the
// thread's ring. write queues bytes and never blocks; read hands over what
// the last receive brought.
type ringTransport struct {
	sw  *switchConn
	p   *ringPoller
	tok Token

	buf        []byte // single-shot receives land here (memory the Poller mapped)
	lo, hi     int    // buf[lo:hi] is received and not yet read
	got        []held // multishot: the provided buffers received, in order
	recvPosted bool
	rerr       error // what ends the input: EOF, or a failed receive or send

	sending    []byte // the bytes of the send in flight, sending[sent:] not yet taken
	sent       int
	sendPosted bool
	next       []byte // bytes written while a send is in flight
	werr       error

	queued  bool // on the Poller's list of work for the next enter
	removed bool
}

// held is a provided buffer a multishot receive filled: buf(bid)[off:n]
// is not read yet.
type held struct {
	bid    uint16
	off, n int
}

func (t *ringTransport) Drains() bool { return true }

// View returns the oldest received bytes not read yet, where the kernel
// put them: the first provided buffer held, or the connection's own
// buffer (single-shot receives).
func (t *ringTransport) View() []byte {
	if len(t.got) > 0 {
		h := &t.got[0]
		return t.p.br.Buf(h.bid)[h.off:h.n]
	}
	if t.lo < t.hi {
		return t.buf[t.lo:t.hi]
	}
	return nil
}

// Discard drops n bytes of View. A provided buffer read to its end goes
// back to the kernel at the next Wait, not before (see Viewer); the
// connection's own buffer takes the next receive, posted by that Wait.
func (t *ringTransport) Discard(n int) {
	if len(t.got) > 0 {
		h := &t.got[0]
		if h.off += n; h.off >= h.n {
			t.p.release(h.bid)
			t.got = t.got[:copy(t.got, t.got[1:])]
		}
		return
	}
	if t.lo += n; t.lo >= t.hi {
		t.lo, t.hi = 0, 0
		t.p.queue(t)
	}
}

func (t *ringTransport) Read(p []byte) (int, error) {
	if br := t.p.br; br != nil {
		n := 0
		for n < len(p) && len(t.got) > 0 {
			h := &t.got[0]
			c := copy(p[n:], br.Buf(h.bid)[h.off:h.n])
			n += c
			if h.off += c; h.off == h.n {
				t.p.release(h.bid)
				t.got = t.got[:copy(t.got, t.got[1:])]
			}
		}
		if n > 0 {
			return n, nil
		}
		if t.rerr != nil {
			return 0, t.rerr
		}
		return 0, ErrAgain
	}
	if t.lo < t.hi {
		n := copy(p, t.buf[t.lo:t.hi])
		t.lo += n
		if t.lo == t.hi {
			t.lo, t.hi = 0, 0
			t.p.queue(t)
		}
		return n, nil
	}
	if t.rerr != nil {
		return 0, t.rerr
	}
	return 0, ErrAgain
}

func (t *ringTransport) Write(p []byte) (int, error) {
	if t.werr != nil {
		return 0, t.werr
	}
	t.next = append(t.next, p...)
	if !t.sendPosted {
		t.p.queue(t)
	}
	return len(p), nil
}

func (t *ringTransport) Close() error { return t.sw.Close() }

// pollSlot is a connection the ring watches for readiness.
type pollSlot struct {
	fd                  int
	inPosted, outPosted bool
	wantOut             bool
}

// ringPoller is a thread's ring. The ring itself is set up by the first
// wait, on the loop's own thread, which is then the only one to submit
// (SINGLE_ISSUER); connections added before are posted then.
type ringPoller struct {
	mu sync.Mutex // guards adds from the connecting goroutines before the loop
	r  *uring.Ring

	rt    []*ringTransport // by Token
	polls []*pollSlot      // by Token
	work  []*ringTransport // transports with a send or a receive to post
	pwork []Token          // poll slots with a poll to post

	bufs     []byte           // every connection's receive buffer, mapped off the Go heap (single-shot receives)
	br       *uring.BufRing   // the provided buffers of multishot receives, when the kernel has them
	brFree   int              // buffers in br the kernel may take
	released []uint16         // buffers read to their end, given back at the next Wait
	starved  []*ringTransport // transports whose multishot receive ended for want of a buffer
	inflight int              // operations the kernel holds
	leaked   bool             // the buffers may still be written: never unmapped

	wakeFD     *wakeFD
	wakePosted bool
	events     []Event // what the current wait returns
	later      []Event // what completions reaped between waits (in remove) left for the next one
	waiting    bool    // within wait: completions go to events, else to later
}

// user_data: the Token in the high bits, the operation in the low byte.
const (
	kRecv = iota + 1
	kSend
	kPollIn
	kPollOut
	kWake
	kCancel
)

func userData(tok Token, kind uint8) uint64 { return uint64(tok)<<8 | uint64(kind) }

func newRingPoller(conns int) (*ringPoller, error) {
	// The eventfd exists before any goroutine can wake the Poller.
	w, err := newWakeFD()
	if err != nil {
		return nil, err
	}
	return &ringPoller{wakeFD: w, events: make([]Event, 0, 2*conns+2),
		rt: make([]*ringTransport, conns), polls: make([]*pollSlot, conns)}, nil
}

func (p *ringPoller) grow(tok Token) {
	for int(tok) >= len(p.rt) {
		p.rt = append(p.rt, nil)
		p.polls = append(p.polls, nil)
	}
}

// setup creates the ring and the receive buffers, on the loop's thread.
func (p *ringPoller) setup() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	entries := uint32(64)
	for entries < uint32(2*len(p.rt)+8) && entries < 4096 {
		entries *= 2
	}
	r, err := uring.New(entries)
	if err != nil {
		return fmt.Errorf("io_uring: %w", err)
	}
	r.RegisterFD()
	if r.Deferred() {
		// Linux 6.1 and later: one multishot receive per connection,
		// armed once, into buffers the kernel takes from a shared ring.
		// A buffer is held from the completion that fills it until the
		// loop has decoded it, within the same turn as a rule, so the
		// ring needs as many as replies arrive in one turn, not one per
		// connection: the kernel cycles through all of them, and each
		// costs resident memory once written. A turn that finds them all
		// taken ends the receives that found none (ENOBUFS) and arms
		// them again at the next Wait.
		n := ringBuffers(len(p.rt))
		if br, err := r.NewBufRing(n, rbufSize); err == nil {
			p.br, p.brFree = br, n
			p.released = make([]uint16, 0, n)
		}
	}
	if p.br == nil {
		bufs, err := unix.Mmap(-1, 0, max(len(p.rt), 1)*rbufSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			r.Close()
			return err
		}
		p.bufs = bufs
	}
	p.r = r
	if p.br != nil {
		return nil
	}
	for tok, t := range p.rt {
		if t != nil {
			t.buf = p.bufs[tok*rbufSize : (tok+1)*rbufSize : (tok+1)*rbufSize]
		}
	}
	return nil
}

func (p *ringPoller) Add(tr Stream, tok Token) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.grow(tok)
	if t, ok := tr.(*ringTransport); ok {
		if p.r != nil && p.br == nil && int(tok) >= len(p.bufs)/rbufSize {
			return fmt.Errorf("io_uring: connection %d has no receive buffer", tok)
		}
		t.p, t.tok = p, tok
		if p.r != nil && p.br == nil {
			t.buf = p.bufs[int(tok)*rbufSize : int(tok+1)*rbufSize : int(tok+1)*rbufSize]
		}
		p.rt[tok] = t
		p.queue(t)
		return nil
	}
	fd := sockFD(tr)
	if fd < 0 {
		return fmt.Errorf("the io_uring transport cannot watch a %T", tr)
	}
	p.polls[tok] = &pollSlot{fd: fd}
	p.pwork = append(p.pwork, tok)
	return nil
}

// queue puts a Stream on the list of work for the next enter.
func (p *ringPoller) queue(t *ringTransport) {
	if !t.queued && !t.removed {
		t.queued = true
		p.work = append(p.work, t)
	}
}

// sqe returns a free submission entry, submitting what is queued when the
// ring is full.
func (p *ringPoller) sqe() (*uring.SQE, error) {
	for {
		if e := p.r.Next(); e != nil {
			return e, nil
		}
		if err := p.r.Enter(false, 0); err != nil {
			return nil, err
		}
		p.reapInto() // completions may be what frees the ring
	}
}

// post fills the ring with the queued work: a Stream's pending send,
// and a receive when it has read everything it got.
func (p *ringPoller) post() error {
	// By index: completions reaped when the ring is full may queue more.
	for i := 0; i < len(p.work); i++ {
		t := p.work[i]
		t.queued = false
		if t.removed {
			continue
		}
		if !t.sendPosted && t.werr == nil && (len(t.next) > 0 || t.sent < len(t.sending)) {
			if t.sent >= len(t.sending) {
				t.sending, t.next = t.next, t.sending[:0]
				t.sent = 0
			}
			e, err := p.sqe()
			if err != nil {
				return err
			}
			rest := t.sending[t.sent:]
			e.Opcode, e.FD = uring.OpSend, int32(t.sw.fd)
			e.Addr, e.Len = uint64(uintptr(unsafe.Pointer(&rest[0]))), uint32(len(rest))
			e.OpFlags = unix.MSG_NOSIGNAL
			e.UserData = userData(t.tok, kSend)
			t.sendPosted = true
			p.inflight++
		}
		if !t.recvPosted && t.rerr == nil && p.br != nil && p.brFree > 0 {
			e, err := p.sqe()
			if err != nil {
				return err
			}
			e.Opcode, e.FD, e.Flags = uring.OpRecv, int32(t.sw.fd), uring.SqeBufferSelect
			e.Ioprio = uring.RecvMultishot | uring.RecvsendPollFirst
			e.UserData = userData(t.tok, kRecv)
			t.recvPosted = true
			p.inflight++
		}
		if !t.recvPosted && t.rerr == nil && p.br == nil && t.lo == t.hi {
			e, err := p.sqe()
			if err != nil {
				return err
			}
			e.Opcode, e.FD = uring.OpRecv, int32(t.sw.fd)
			if p.r.Deferred() {
				// Linux 6.1 and later (POLL_FIRST is 5.19): the reply
				// follows the request just sent, so rather than try
				// first and fail, wait for it at once.
				e.Ioprio = uring.RecvsendPollFirst
			}
			e.Addr, e.Len = uint64(uintptr(unsafe.Pointer(&t.buf[0]))), uint32(len(t.buf))
			e.UserData = userData(t.tok, kRecv)
			t.recvPosted = true
			p.inflight++
		}
	}
	p.work = p.work[:0]
	for i := 0; i < len(p.pwork); i++ {
		tok := p.pwork[i]
		s := p.polls[tok]
		if s == nil {
			continue
		}
		if !s.inPosted {
			// One-shot, armed again after each event: arming checks
			// readiness, so the watch is level-triggered like the
			// epoll transport's (crypto/tls may stop reading before
			// the socket is empty).
			if err := p.postPoll(s.fd, unix.POLLIN|unix.POLLRDHUP, 0, userData(tok, kPollIn)); err != nil {
				return err
			}
			s.inPosted = true
		}
		if s.wantOut && !s.outPosted {
			if err := p.postPoll(s.fd, unix.POLLOUT, 0, userData(tok, kPollOut)); err != nil {
				return err
			}
			s.outPosted = true
		}
	}
	p.pwork = p.pwork[:0]
	if !p.wakePosted {
		if err := p.postPoll(p.wakeFD.fd, unix.POLLIN, uring.PollAddMulti, userData(0, kWake)); err != nil {
			return err
		}
		p.wakePosted = true
	}
	return nil
}

func (p *ringPoller) postPoll(fd int, events uint32, flags uint32, ud uint64) error {
	e, err := p.sqe()
	if err != nil {
		return err
	}
	e.Opcode, e.FD, e.Len, e.OpFlags, e.UserData = uring.OpPollAdd, int32(fd), flags, events, ud
	p.inflight++
	return nil
}

// Wait submits the queued work and waits for completions, until deadline
// or for at most maxRawWait.
func (p *ringPoller) Wait(deadline, now int64) ([]Event, error) {
	if p.r == nil {
		if err := p.setup(); err != nil {
			return nil, err
		}
	}
	p.waiting = true
	defer func() { p.waiting = false }()
	p.events = append(p.events[:0], p.later...)
	p.later = p.later[:0]
	p.giveBackReleased()
	if err := p.post(); err != nil {
		return nil, err
	}
	timeout := int64(maxRawWait) * int64(time.Millisecond)
	if deadline >= 0 {
		timeout = min(timeout, max(deadline-now, 0))
	}
	if len(p.events) > 0 {
		timeout = 0 // events are there already: only collect more
	}
	if err := p.r.Enter(timeout > 0, timeout); err != nil {
		return nil, fmt.Errorf("io_uring_enter: %w", err)
	}
	p.reapInto()
	return p.events, nil
}

// reapInto takes the completions, turning them into events.
func (p *ringPoller) reapInto() {
	for {
		head, tail := p.r.Completions()
		if head == tail {
			return
		}
		for i := head; i != tail; i++ {
			p.complete(p.r.CQE(i))
		}
		p.r.Release(tail)
	}
}

// complete applies one completion.
func (p *ringPoller) complete(c *uring.CQE) {
	tok, kind := Token(c.UserData>>8), uint8(c.UserData)
	more := c.Flags&uring.CqeFMore != 0
	if !more && kind != kCancel {
		p.inflight--
	}
	switch kind {
	case kRecv:
		t := p.stream(tok)
		if c.Flags&uring.CqeFBuffer != 0 {
			// A multishot receive took a provided buffer.
			bid := uint16(c.Flags >> uring.CqeBufferShift)
			p.brFree--
			if t == nil || t.removed || c.Res <= 0 {
				p.giveBack(bid)
			} else {
				t.got = append(t.got, held{bid: bid, n: int(c.Res)})
			}
		}
		if t == nil {
			return
		}
		if !more {
			t.recvPosted = false
		}
		switch {
		case c.Res > 0:
			if p.br == nil {
				t.lo, t.hi = 0, int(c.Res)
			}
		case c.Res == 0:
			t.rerr = io.EOF
		case unix.Errno(-c.Res) == unix.ENOBUFS && p.br != nil:
			// Every buffer is waiting to be read: arm again once one
			// is given back.
			if p.brFree > 0 {
				p.queue(t)
			} else {
				p.starved = append(p.starved, t)
			}
			return
		case unix.Errno(-c.Res) == unix.EAGAIN || unix.Errno(-c.Res) == unix.EINTR:
			p.queue(t)
			return
		case unix.Errno(-c.Res) == unix.ECANCELED && t.removed:
			return
		default:
			t.rerr = unix.Errno(-c.Res)
		}
		p.emit(Event{Tok: tok, In: true})
	case kSend:
		t := p.stream(tok)
		if t == nil {
			return
		}
		t.sendPosted = false
		switch {
		case c.Res >= 0:
			t.sent += int(c.Res)
			if t.sent < len(t.sending) || len(t.next) > 0 {
				p.queue(t)
			}
		case unix.Errno(-c.Res) == unix.EAGAIN || unix.Errno(-c.Res) == unix.EINTR:
			p.queue(t)
		case t.removed:
		default:
			t.werr = unix.Errno(-c.Res)
			if t.rerr == nil {
				t.rerr = t.werr
			}
			p.emit(Event{Tok: tok, In: true})
		}
	case kPollIn, kPollOut:
		s := p.poll(tok)
		if s == nil {
			return
		}
		if kind == kPollIn {
			if !more {
				s.inPosted = false
				p.pwork = append(p.pwork, tok)
			}
		} else {
			s.outPosted = false
		}
		if c.Res < 0 && unix.Errno(-c.Res) == unix.ECANCELED {
			return
		}
		p.emit(Event{Tok: tok, In: kind == kPollIn, Out: kind == kPollOut})
	case kWake:
		if !more {
			p.wakePosted = false
		}
		p.wakeFD.drain()
	}
}

// release marks a provided buffer read: the next Wait gives it back.
// Until then the kernel cannot write it, so a reply decoded in place
// (View) stays valid through the loop's turn, even across the Enter a
// Remove makes.
func (p *ringPoller) release(bid uint16) {
	p.released = append(p.released, bid)
}

// giveBackReleased gives the buffers released since the last Wait back to
// the kernel, with one publication for them all.
func (p *ringPoller) giveBackReleased() {
	if len(p.released) == 0 {
		return
	}
	for _, bid := range p.released {
		p.br.Put(bid)
	}
	p.brFree += len(p.released)
	p.released = p.released[:0]
	p.br.Publish()
	p.rearmStarved()
}

// giveBack returns a provided buffer to the kernel at once, and rearms
// the receives that ended for want of one.
func (p *ringPoller) giveBack(bid uint16) {
	p.br.Put(bid)
	p.br.Publish()
	p.brFree++
	p.rearmStarved()
}

func (p *ringPoller) rearmStarved() {
	if len(p.starved) > 0 {
		for _, t := range p.starved {
			p.queue(t)
		}
		p.starved = p.starved[:0]
	}
}

// emit records an Event for the current wait, or, reaped between waits,
// for the next one: the loop may be going through the current wait's
// events when a removal reaps more.
func (p *ringPoller) emit(ev Event) {
	if p.waiting {
		p.events = append(p.events, ev)
	} else {
		p.later = append(p.later, ev)
	}
}

func (p *ringPoller) stream(tok Token) *ringTransport {
	if int(tok) < len(p.rt) {
		return p.rt[tok]
	}
	return nil
}

func (p *ringPoller) poll(tok Token) *pollSlot {
	if int(tok) < len(p.polls) {
		return p.polls[tok]
	}
	return nil
}

func (p *ringPoller) WatchWrite(tr Stream, tok Token, on bool) error {
	s := p.poll(tok)
	if s == nil {
		return nil // a ring transport's writes never wait
	}
	s.wantOut = on
	if on && !s.outPosted {
		p.pwork = append(p.pwork, tok)
	}
	return nil
}

// Remove cancels what the kernel holds for a connection and waits until it
// lets go: the buffers must not be written once the connection is gone.
func (p *ringPoller) Remove(tr Stream) {
	var fd int
	var tok Token
	var busy func() bool
	if t, ok := tr.(*ringTransport); ok {
		if t.p != p || t.removed {
			return
		}
		t.removed = true
		fd, tok = t.sw.fd, t.tok
		busy = func() bool { return t.recvPosted || t.sendPosted }
		defer func() {
			p.rt[tok] = nil
			if !p.leaked {
				for _, h := range t.got {
					p.release(h.bid)
				}
			}
			t.got = nil
		}()
	} else {
		fd = sockFD(tr)
		tok = ^Token(0)
		for i, s := range p.polls {
			if s != nil && s.fd == fd {
				tok = Token(i)
			}
		}
		if tok == ^Token(0) {
			return
		}
		s := p.polls[tok]
		busy = func() bool { return s.inPosted || s.outPosted }
		defer func() { p.polls[tok] = nil }()
	}
	if p.r == nil || !busy() {
		return
	}
	e, err := p.sqe()
	if err == nil {
		e.Opcode, e.FD, e.OpFlags = uring.OpAsyncCancel, int32(fd), uring.CancelFD|uring.CancelAll
		e.UserData = userData(tok, kCancel)
		for i := 0; busy() && i < 1000; i++ {
			if err = p.r.Enter(true, int64(time.Millisecond)); err != nil {
				break
			}
			p.reapInto()
		}
	}
	if busy() {
		// The kernel did not let go (it always does for sockets): keep
		// the buffers mapped for good rather than risk a late write.
		p.leaked = true
	}
}

// Wake interrupts a wait; any goroutine may call it.
func (p *ringPoller) Wake() {
	p.wakeFD.signal()
}

func (p *ringPoller) Close() {
	if p.r != nil {
		p.r.Close()
		p.r = nil
	}
	p.wakeFD.Close()
	if p.inflight == 0 && !p.leaked {
		if p.bufs != nil {
			unix.Munmap(p.bufs)
		}
		if p.br != nil {
			p.br.Unmap()
		}
	}
	p.bufs, p.br = nil, nil
}
