package netpoll

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The loop's system calls on its own non-blocking sockets are raw: they
// skip the runtime's entersyscall/exitsyscall. A read or a send on a
// non-blocking socket never blocks, so the scheduler has nothing to hand
// off, and the hand-off bookkeeping was a measurable share of the client's
// CPU per round trip.

// rawRead is read(2) on a non-blocking socket.
func rawRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// rawSend is send(2) with MSG_NOSIGNAL: a peer that went away gives EPIPE,
// not a signal.
func rawSend(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)),
		unix.MSG_NOSIGNAL, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// maxRawWait bounds one raw wait, in milliseconds; see rawEpollWait.
const maxRawWait = 10

// rawEpollWait is epoll_pwait(2) as a raw system call, at most maxRawWait
// milliseconds long (ms < 0 or larger waits that long).
//
// The loop's goroutine keeps its P while it waits. Through unix.EpollWait
// (an ordinary blocking call) the runtime's monitor takes the P away after
// 20 us of waiting and the thread must win one back when the wait returns;
// on every round trip that costs futex wake-ups, a monitor that keeps
// polling every 20 us, and 20–40% more client CPU per transaction than a
// raw wait (the before/after tables in the issue note). A raw wait cannot
// stall the garbage collector or a Ctrl-C: the run gives GOMAXPROCS a P
// beyond its loops, so signal handling and timers always have one; a stop
// the world or a preemption request signals the thread, which ends
// epoll_pwait with EINTR (it is never restarted, whatever SA_RESTART says)
// and the loop reaches a safe point at once; the runtime repeats the signal
// until the goroutine stops, and should every signal land just before the
// Wait begins, the wait still ends within maxRawWait.
func rawEpollWait(epfd int, events []unix.EpollEvent, ms int) (int, error) {
	if ms < 0 || ms > maxRawWait {
		ms = maxRawWait
	}
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(ms), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
