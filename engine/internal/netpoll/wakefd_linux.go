package netpoll

import (
	"sync"

	"golang.org/x/sys/unix"
)

// wakeFD is a loop's eventfd for wake-ups. Any goroutine may signal it,
// also while or after the Poller closes (a run's cancellation can fire
// as the run ends): once closed, signal does nothing, so a wake-up never
// lands on a descriptor number the process has since reused.
type wakeFD struct {
	mu     sync.Mutex
	fd     int
	closed bool
}

func newWakeFD() (*wakeFD, error) {
	fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &wakeFD{fd: fd}, nil
}

func (w *wakeFD) signal() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		b := [8]byte{1}
		_, _ = unix.Write(w.fd, b[:])
	}
}

// drain resets the counter; only the loop calls it, before close.
func (w *wakeFD) drain() {
	var b [8]byte
	_, _ = rawRead(w.fd, b[:])
}

func (w *wakeFD) Close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		unix.Close(w.fd)
	}
}
