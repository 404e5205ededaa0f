package engine

import (
	"errors"
	"syscall"
	"time"
	"unsafe"
)

// poller waits for socket readiness with epoll. Registrations are
// level-triggered; every readable socket is drained into its buffer, so a
// socket nobody waits on does not wake the loop twice.
type poller struct {
	epfd   int
	events []syscall.EpollEvent
	wakeR  int // read end of the wake-up pipe
	wakeW  int
	pwait2 bool             // epoll_pwait2 with nanosecond timeouts is available
	ts     syscall.Timespec // kept here so that passing it does not allocate
}

// wakeToken is the event data of the wake-up pipe.
const wakeToken = ^uint64(0) >> 1

func newPoller(size int) (*poller, error) {
	fd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	p := &poller{epfd: fd, events: make([]syscall.EpollEvent, size+1), pwait2: true}
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	p.wakeR, p.wakeW = fds[0], fds[1]
	if err := p.add(p.wakeR, wakeToken, false); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// add registers fd for reading (and writing when write is set).
func (p *poller) add(fd int, token uint64, write bool) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP}
	if write {
		ev.Events |= syscall.EPOLLOUT
	}
	*(*uint64)(unsafe.Pointer(&ev.Fd)) = token
	return syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_ADD, fd, &ev)
}

// modify changes whether fd is watched for writing.
func (p *poller) modify(fd int, token uint64, write bool) error {
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN | syscall.EPOLLRDHUP}
	if write {
		ev.Events |= syscall.EPOLLOUT
	}
	*(*uint64)(unsafe.Pointer(&ev.Fd)) = token
	return syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_MOD, fd, &ev)
}

// remove unregisters fd.
func (p *poller) remove(fd int) {
	_ = syscall.EpollCtl(p.epfd, syscall.EPOLL_CTL_DEL, fd, nil)
}

// wait blocks until an event or the timeout (negative: none). It returns
// the ready events; EINTR yields none.
func (p *poller) wait(timeout time.Duration) ([]syscall.EpollEvent, error) {
	var n int
	var err error
	if p.pwait2 {
		n, err = p.waitNano(timeout)
		if errors.Is(err, syscall.ENOSYS) {
			p.pwait2 = false
		}
	}
	if !p.pwait2 {
		ms := -1
		if timeout >= 0 {
			ms = int((timeout + time.Millisecond - 1) / time.Millisecond)
		}
		n, err = syscall.EpollWait(p.epfd, p.events, ms)
	}
	if err == syscall.EINTR {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return p.events[:n], nil
}

// waitNano is epoll_pwait2, whose timeout has nanosecond resolution, so
// that --rate schedules and \sleep are kept to the microsecond.
//
// It is a raw system call: the loop's goroutine keeps its P while it waits.
// With syscall.Syscall6 the runtime's monitor hands the P off after 20 us
// and the thread must win one back when the wait returns, which costs
// futex wake-ups and sleeps on every round trip and was the largest share
// of gbench's client CPU time. The run sets GOMAXPROCS above the number of
// loops so that other goroutines keep a P of their own; a pending
// preemption or garbage collection interrupts the wait with a signal
// (EINTR), after which the loop reaches a safe point at once.
func (p *poller) waitNano(timeout time.Duration) (int, error) {
	var ts *syscall.Timespec
	if timeout >= 0 {
		p.ts = syscall.NsecToTimespec(int64(timeout))
		ts = &p.ts
	}
	r, _, errno := syscall.RawSyscall6(sysEpollPwait2, uintptr(p.epfd), uintptr(unsafe.Pointer(&p.events[0])),
		uintptr(len(p.events)), uintptr(unsafe.Pointer(ts)), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// wake interrupts a wait from another goroutine.
func (p *poller) wake() {
	var b [1]byte
	_, _ = syscall.Write(p.wakeW, b[:])
}

// drainWake empties the wake-up pipe.
func (p *poller) drainWake() {
	var b [64]byte
	for {
		n, err := syscall.Read(p.wakeR, b[:])
		if n <= 0 || err != nil {
			return
		}
	}
}

func (p *poller) close() {
	syscall.Close(p.wakeR)
	syscall.Close(p.wakeW)
	syscall.Close(p.epfd)
}

// eventToken returns the token registered with an event's fd.
func eventToken(ev *syscall.EpollEvent) uint64 {
	return *(*uint64)(unsafe.Pointer(&ev.Fd))
}

// sysEpollPwait2 is epoll_pwait2's number, the same on every architecture.
const sysEpollPwait2 = 441
