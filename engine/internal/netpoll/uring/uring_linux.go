package uring

import (
	"errors"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

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

// SQE is struct io_uring_sqe (64 bytes).
type SQE struct {
	Opcode      uint8
	Flags       uint8
	Ioprio      uint16
	FD          int32
	Off         uint64
	Addr        uint64
	Len         uint32
	OpFlags     uint32 // msg_flags, poll32_events, cancel_flags...
	UserData    uint64
	BufIndex    uint16
	Personality uint16
	SpliceFDIn  int32
	Addr3       uint64
	Pad         uint64
}

// CQE is struct io_uring_cqe (16 bytes).
type CQE struct {
	UserData uint64
	Res      int32
	Flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32
	ts        uint64
}

const (
	OpNop         = 0
	OpPollAdd     = 6
	OpAsyncCancel = 14
	OpSend        = 26
	OpRecv        = 27

	SetupClamp        = 1 << 4
	SetupSubmitAll    = 1 << 7
	SetupCoopTaskrun  = 1 << 8
	SetupSingleIssuer = 1 << 12
	SetupDeferTaskrun = 1 << 13

	FeatSingleMmap = 1 << 0
	FeatNoDrop     = 1 << 1
	FeatExtArg     = 1 << 8

	EnterGetEvents    = 1 << 0
	EnterExtArg       = 1 << 3
	EnterRegisteredFD = 1 << 4
	RegisterRingFDs   = 20
	RecvsendPollFirst = 1 << 0
	RecvMultishot     = 1 << 1
	SqeBufferSelect   = 1 << 5
	CqeFBuffer        = 1 << 0
	CqeBufferShift    = 16
	RegisterPbufRing  = 22

	PollAddMulti = 1 << 0
	CqeFMore     = 1 << 1

	CancelFD  = 1 << 1
	CancelAll = 1 << 0

	OffSQRing = 0
	OffCQRing = 0x8000000
	OffSQEs   = 0x10000000
)

// Ring is one io_uring, driven by one thread.
type Ring struct {
	fd       int
	enterFD  int     // fd, or its index among the thread's registered rings
	enterReg uintptr // EnterRegisteredFD when enterFD is an index
	flags    uint32
	features uint32

	sqMem, sqeMem  []byte // the rings (one mapping), the entries
	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        []uint32
	sqes           []SQE
	tail           uint32 // our tail: sqes up to it are filled, not yet published
	unsubmitted    uint32 // published to the kernel and not yet taken by an enter

	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           []CQE

	arg getEventsArg
	ts  unix.Timespec
}

// ErrNoUring is why io_uring cannot be used here.
var ErrNoUring = errors.New("io_uring is not available")

// ringFlagSets are the setup flags tried in turn, fastest first:
// Completions processed only when the Ring's thread asks for them
// (DEFER_TASKRUN, Linux 6.1) and otherwise without interrupting it (COOP).
var ringFlagSets = []uint32{
	SetupClamp | SetupSubmitAll | SetupSingleIssuer | SetupDeferTaskrun,
	SetupClamp | SetupSubmitAll | SetupCoopTaskrun,
	SetupClamp,
}

// New sets up a Ring of at least entries submission slots. Under
// SINGLE_ISSUER only the calling thread may submit to it.
func New(entries uint32) (*Ring, error) {
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

func setupRing(entries, flags uint32) (_ *Ring, err error) {
	var p uringParams
	p.flags = flags
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, e
	}
	r := &Ring{fd: int(fd), flags: p.flags, features: p.features}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	// Without these the Stream would need more machinery than it is
	// worth: a single mapping (5.4), no lost completions (5.5) and waits
	// with a timeout (5.11).
	if need := uint32(FeatSingleMmap | FeatNoDrop | FeatExtArg); p.features&need != need {
		return nil, ErrNoUring
	}
	sqSize := int(p.sqOff.array) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(unsafe.Sizeof(CQE{}))
	size := max(sqSize, cqSize)
	if r.sqMem, err = unix.Mmap(r.fd, OffSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return nil, err
	}
	if r.sqeMem, err = unix.Mmap(r.fd, OffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(SQE{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		return nil, err
	}
	base := unsafe.Pointer(&r.sqMem[0])
	r.sqHead = (*uint32)(unsafe.Add(base, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(base, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	r.sqArray = unsafe.Slice((*uint32)(unsafe.Add(base, p.sqOff.array)), p.sqEntries)
	r.sqes = unsafe.Slice((*SQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	r.cqHead = (*uint32)(unsafe.Add(base, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	r.cqes = unsafe.Slice((*CQE)(unsafe.Add(base, p.cqOff.cqes)), p.cqEntries)
	// The index array maps slot i to SQE i once and for all.
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

// BufRing is a Ring of provided buffers (Linux 5.19): the kernel takes a
// buffer from it for each receive it completes, and gbench gives buffers
// back once it has read them. It lives off the Go heap, as do the buffers.
type BufRing struct {
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
	resv uint16 // in entry 0: the Ring's tail
}

// NewBufRing registers n (a power of two) buffers of size bytes as group
// 0 of r.
func (r *Ring) NewBufRing(n, size int) (_ *BufRing, err error) {
	b := &BufRing{size: size, mask: uint16(n - 1)}
	if b.mem, err = unix.Mmap(-1, 0, n*int(unsafe.Sizeof(ioUringBuf{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		return nil, err
	}
	if b.bufs, err = unix.Mmap(-1, 0, n*size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS); err != nil {
		unix.Munmap(b.mem)
		return nil, err
	}
	b.entry = unsafe.Slice((*ioUringBuf)(unsafe.Pointer(&b.mem[0])), n)
	reg := bufReg{ringAddr: uint64(uintptr(unsafe.Pointer(&b.mem[0]))), ringEntries: uint32(n)}
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), RegisterPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		b.Unmap()
		return nil, e
	}
	for i := 0; i < n; i++ {
		b.Put(uint16(i))
	}
	b.Publish()
	return b, nil
}

// Buf returns buffer bid.
func (b *BufRing) Buf(bid uint16) []byte {
	return b.bufs[int(bid)*b.size : (int(bid)+1)*b.size]
}

// Put adds buffer bid at the tail; publish makes the additions visible.
func (b *BufRing) Put(bid uint16) {
	e := &b.entry[b.tail&b.mask]
	e.addr = uint64(uintptr(unsafe.Pointer(&b.bufs[int(bid)*b.size])))
	e.len = uint32(b.size)
	e.bid = bid
	b.tail++
}

// Publish stores the tail with release order: the kernel reads it with
// acquire. The tail shares an aligned word with entry 0's bid, which only
// gbench writes, so the word is stored whole.
func (b *BufRing) Publish() {
	word := (*uint32)(unsafe.Pointer(&b.entry[0].bid))
	atomic.StoreUint32(word, uint32(b.entry[0].bid)|uint32(b.tail)<<16)
}

func (b *BufRing) Unmap() {
	unix.Munmap(b.mem)
	unix.Munmap(b.bufs)
}

// rsrcUpdate is struct io_uring_rsrc_update.
type rsrcUpdate struct {
	offset uint32
	resv   uint32
	data   uint64
}

// RegisterFD registers the Ring with the calling thread (Linux 5.18), so
// that an enter does not look its descriptor up each time. Only that
// thread may then use the registration; failing, enters use the fd.
func (r *Ring) RegisterFD() {
	u := rsrcUpdate{offset: ^uint32(0), data: uint64(r.fd)}
	n, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), RegisterRingFDs, uintptr(unsafe.Pointer(&u)), 1, 0, 0)
	if e == 0 && n == 1 {
		r.enterFD, r.enterReg = int(u.offset), EnterRegisteredFD
	}
}

// Deferred reports whether completions wait for the Ring's thread.
func (r *Ring) Deferred() bool { return r.flags&SetupDeferTaskrun != 0 }

// Next returns a cleared submission entry, or nil when the queue is full
// (the caller submits and asks again).
func (r *Ring) Next() *SQE {
	head := atomic.LoadUint32(r.sqHead)
	if r.tail-head >= uint32(len(r.sqes)) {
		return nil
	}
	e := &r.sqes[r.tail&r.sqMask]
	*e = SQE{}
	r.tail++
	return e
}

// Publish makes the filled entries visible to the kernel.
func (r *Ring) Publish() {
	old := atomic.LoadUint32(r.sqTail)
	if r.tail != old {
		r.unsubmitted += r.tail - old
		atomic.StoreUint32(r.sqTail, r.tail)
	}
}

// Enter submits what is published and, with wait, waits up to timeout
// nanoseconds (< 0: no limit) for at least one completion. It is a raw
// system call for the reasons rawEpollWait gives; callers bound the
// timeout likewise. EINTR, ETIME and EBUSY are not errors: they return
// with whatever completed.
func (r *Ring) Enter(wait bool, timeout int64) error {
	r.Publish()
	// Completions are collected in every enter: under DEFER_TASKRUN they
	// are only processed inside one that asks for events.
	flags, minComplete := EnterGetEvents|r.enterReg, uintptr(0)
	argp, argsz := uintptr(0), uintptr(0)
	if wait {
		minComplete = 1
		if timeout >= 0 {
			r.ts = unix.NsecToTimespec(timeout)
			r.arg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.ts)))}
			flags |= EnterExtArg
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

// Completions returns the completions the kernel has posted: entries
// head up to tail; release(tail) hands them back.
func (r *Ring) Completions() (head, tail uint32) {
	return *r.cqHead, atomic.LoadUint32(r.cqTail)
}

// CQE returns completion i (between head and tail).
func (r *Ring) CQE(i uint32) *CQE { return &r.cqes[i&r.cqMask] }

// Release hands the completions before tail back to the kernel.
func (r *Ring) Release(tail uint32) { atomic.StoreUint32(r.cqHead, tail) }

func (r *Ring) Close() {
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
