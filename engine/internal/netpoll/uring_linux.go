package netpoll

import (
	"errors"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A small io_uring binding: what the ring Stream needs and no more. The
// layouts and numbers are the kernel's (include/uapi/linux/io_uring.h).

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries    uint32
	cqEntries    uint32
	flags        uint32
	sqThreadCPU  uint32
	sqThreadIdle uint32
	features     uint32
	wqFD         uint32
	resv         [3]uint32
	sqOff        sqringOffsets
	cqOff        cqringOffsets
}

// sqringOffsets is struct io_sqring_offsets.
type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

// cqringOffsets is struct io_cqring_offsets.
type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// sqe is struct io_uring_sqe (64 bytes).
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	opFlags     uint32 // msg_flags, poll32_events, cancel_flags...
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	pad         uint64
}

// cqe is struct io_uring_cqe (16 bytes).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

const (
	opPollAdd     = 6
	opAsyncCancel = 14
	opSend        = 26
	opRecv        = 27

	setupClamp        = 1 << 4
	setupSubmitAll    = 1 << 7
	setupCoopTaskrun  = 1 << 8
	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13

	featSingleMmap = 1 << 0
	featNoDrop     = 1 << 1
	featExtArg     = 1 << 8

	enterGetEvents    = 1 << 0
	enterExtArg       = 1 << 3
	enterRegisteredFD = 1 << 4
	registerRingFDs   = 20
	recvsendPollFirst = 1 << 0
	recvMultishot     = 1 << 1
	sqeBufferSelect   = 1 << 5
	cqeFBuffer        = 1 << 0
	cqeBufferShift    = 16
	registerPbufRing  = 22

	pollAddMulti = 1 << 0
	cqeFMore     = 1 << 1

	cancelFD  = 1 << 1
	cancelAll = 1 << 0

	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000
)

// ring is one io_uring, driven by one thread.
type ring struct {
	fd       int
	enterFD  int     // fd, or its index among the thread's registered rings
	enterReg uintptr // enterRegisteredFD when enterFD is an index
	flags    uint32
	features uint32

	sqMem, sqeMem  []byte // the rings (one mapping), the entries
	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []sqe
	tail           uint32 // our tail: sqes up to it are filled, not yet published
	unsubmitted    uint32 // published to the kernel and not yet taken by an enter

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []cqe

	arg getEventsArg
	ts  unix.Timespec
}

// errNoUring is why io_uring cannot be used here.
var errNoUring = errors.New("io_uring is not available")

// ringFlagSets are the setup flags tried in turn, fastest first:
// completions processed only when the ring's thread asks for them
// (DEFER_TASKRUN, Linux 6.1) and otherwise without interrupting it (COOP).
var ringFlagSets = []uint32{
	setupClamp | setupSubmitAll | setupSingleIssuer | setupDeferTaskrun,
	setupClamp | setupSubmitAll | setupCoopTaskrun,
	setupClamp,
}

// newRing sets up a ring of at least entries submission slots. Under
// SINGLE_ISSUER only the calling thread may submit to it.
func newRing(entries uint32) (*ring, error) {
	var lastErr error
	for _, flags := range ringFlagSets {
		r, err := setupRing(entries, flags)
		if err == nil {
			return r, nil
		}
		lastErr = err
		if err != unix.EINVAL {
			break
		}
	}
	return nil, lastErr
}

func setupRing(entries, flags uint32) (_ *ring, err error) {
	var p uringParams
	p.flags = flags
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, e
	}
	r := &ring{fd: int(fd), flags: p.flags, features: p.features}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	// Without these the Stream would need more machinery than it is
	// worth: a single mapping (5.4), no lost completions (5.5) and waits
	// with a timeout (5.11).
	if need := uint32(featSingleMmap | featNoDrop | featExtArg); p.features&need != need {
		return nil, errNoUring
	}
	sqSize := int(p.sqOff.array) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(unsafe.Sizeof(cqe{}))
	size := max(sqSize, cqSize)
	if r.sqMem, err = unix.Mmap(r.fd, offSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return nil, err
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return nil, err
	}
	base := unsafe.Pointer(&r.sqMem[0])
	r.sqHead = (*uint32)(unsafe.Add(base, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(base, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Add(base, p.sqOff.array)), p.sqEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Add(base, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*cqe)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	// The index array maps slot i to sqe i once and for all.
	for i := range r.sqArray {
		r.sqArray[i] = uint32(i)
	}
	r.tail = atomic.LoadUint32(r.sqTail)
	r.enterFD = r.fd
	return r, nil
}

// bufReg is struct io_uring_buf_reg.
type bufReg struct {
	ringAddr    uint64
	ringEntries uint32
	bgid        uint16
	flags       uint16
	resv        [3]uint64
}

// bufRing is a ring of provided buffers (Linux 5.19): the kernel takes a
// buffer from it for each receive it completes, and gbench gives buffers
// back once it has read them. It lives off the Go heap, as do the buffers.
type bufRing struct {
	mem   []byte // entries of struct io_uring_buf; the tail is in entry 0's last two bytes
	bufs  []byte // the buffers, size bytes each
	size  int
	mask  uint16
	tail  uint16
	entry []ioUringBuf
}

// ioUringBuf is struct io_uring_buf.
type ioUringBuf struct {
	addr uint64
	len  uint32
	bid  uint16
	resv uint16 // in entry 0: the ring's tail
}

// newBufRing registers n (a power of two) buffers of size bytes as group
// 0 of r.
func (r *ring) newBufRing(n, size int) (_ *bufRing, err error) {
	b := &bufRing{size: size, mask: uint16(n - 1)}
	if b.mem, err = unix.Mmap(-1, 0, n*int(unsafe.Sizeof(ioUringBuf{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, err
	}
	if b.bufs, err = unix.Mmap(-1, 0, n*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		unix.Munmap(b.mem)
		return nil, err
	}
	b.entry = unsafe.Slice((*ioUringBuf)(unsafe.Pointer(&b.mem[0])), n)
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&b.mem[0]))), ringEntries: uint32(n)}
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		b.unmap()
		return nil, e
	}
	for i := 0; i < n; i++ {
		b.put(uint16(i))
	}
	b.publish()
	return b, nil
}

// buf returns buffer bid.
func (b *bufRing) buf(bid uint16) []byte {
	return b.bufs[int(bid)*b.size : (int(bid)+1)*b.size]
}

// put adds buffer bid at the tail; publish makes the additions visible.
func (b *bufRing) put(bid uint16) {
	e := &b.entry[b.tail&b.mask]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.bufs[int(bid)*b.size])))
	e.len = uint32(b.size)
	e.bid = bid
	b.tail++
}

// publish stores the tail with release order: the kernel reads it with
// acquire. The tail shares an aligned word with entry 0's bid, which only
// gbench writes, so the word is stored whole.
func (b *bufRing) publish() {
	word := (*uint32)(unsafe.Pointer(&b.entry[0].bid))
	atomic.StoreUint32(word, uint32(b.entry[0].bid)|uint32(b.tail)<<16)
}

func (b *bufRing) unmap() {
	unix.Munmap(b.mem)
	unix.Munmap(b.bufs)
}

// rsrcUpdate is struct io_uring_rsrc_update.
type rsrcUpdate struct {
	offset uint32
	resv   uint32
	data   uint64
}

// registerFD registers the ring with the calling thread (Linux 5.18), so
// that an enter does not look its descriptor up each time. Only that
// thread may then use the registration; failing, enters use the fd.
func (r *ring) registerFD() {
	u := rsrcUpdate{offset: ^uint32(0), data: uint64(r.fd)}
	n, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerRingFDs, uintptr(unsafe.Pointer(&u)), 1, 0, 0)
	if e == 0 && n == 1 {
		r.enterFD, r.enterReg = int(u.offset), enterRegisteredFD
	}
}

// deferred reports whether completions wait for the ring's thread.
func (r *ring) deferred() bool { return r.flags&setupDeferTaskrun != 0 }

// next returns a cleared submission entry, or nil when the queue is full
// (the caller submits and asks again).
func (r *ring) next() *sqe {
	head := atomic.LoadUint32(r.sqHead)
	if r.tail-head >= uint32(len(r.sqes)) {
		return nil
	}
	e := &r.sqes[r.tail&r.sqMask]
	*e = sqe{}
	r.tail++
	return e
}

// publish makes the filled entries visible to the kernel.
func (r *ring) publish() {
	old := atomic.LoadUint32(r.sqTail)
	if r.tail != old {
		r.unsubmitted += r.tail - old
		atomic.StoreUint32(r.sqTail, r.tail)
	}
}

// enter submits what is published and, with wait, waits up to timeout
// nanoseconds (< 0: no limit) for at least one completion. It is a raw
// system call for the reasons rawEpollWait gives; callers bound the
// timeout likewise. EINTR, ETIME and EBUSY are not errors: they return
// with whatever completed.
func (r *ring) enter(wait bool, timeout int64) error {
	r.publish()
	// Completions are collected in every enter: under DEFER_TASKRUN they
	// are only processed inside one that asks for events.
	flags, minComplete := enterGetEvents|r.enterReg, uintptr(0)
	argp, argsz := uintptr(0), uintptr(0)
	if wait {
		minComplete = 1
		if timeout >= 0 {
			r.ts = unix.NsecToTimespec(timeout)
			r.arg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
			flags |= enterExtArg
			argp, argsz = uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg)
		}
	}
	n, _, e := unix.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.enterFD), uintptr(r.unsubmitted), minComplete, flags, argp, argsz)
	if e == 0 {
		r.unsubmitted -= min(uint32(n), r.unsubmitted)
	}
	switch e {
	case 0, unix.EINTR, unix.ETIME, unix.EBUSY, unix.EAGAIN:
		return nil
	}
	return e
}

// completions returns the completions the kernel has posted: entries
// head up to tail; release(tail) hands them back.
func (r *ring) completions() (head, tail uint32) {
	return *r.cqHead, atomic.LoadUint32(r.cqTail)
}

// cqe returns completion i (between head and tail).
func (r *ring) cqe(i uint32) *cqe { return &r.cqes[i&r.cqMask] }

// release hands the completions before tail back to the kernel.
func (r *ring) release(tail uint32) { atomic.StoreUint32(r.cqHead, tail) }

func (r *ring) Close() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
		r.sqeMem = nil
	}
	if r.sqMem != nil {
		unix.Munmap(r.sqMem)
		r.sqMem = nil
	}
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
}
