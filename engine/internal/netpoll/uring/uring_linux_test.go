package uring

import (
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// newTestRing sets up a ring, or skips where the kernel, a sysctl or a
// seccomp profile refuses io_uring: these tests are about the binding, not
// about whether this machine allows it.
func newTestRing(t *testing.T) *Ring {
	t.Helper()
	// Under SINGLE_ISSUER only the thread that set the ring up submits.
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	r, err := New(8)
	if err != nil {
		// ENOSYS (an old kernel, qemu-user), EPERM (a sysctl, seccomp),
		// ErrNoUring (features missing): any refusal is this machine's.
		t.Skipf("io_uring refused here: %v", err)
	}
	t.Cleanup(r.Close)
	return r
}

// socketpair returns a connected pair of stream sockets.
func socketpair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

// reap waits for at least one completion and returns copies of all that
// are posted.
func reap(t *testing.T, r *Ring) []CQE {
	t.Helper()
	var out []CQE
	for tries := 0; len(out) == 0; tries++ {
		if tries == 100 {
			t.Fatal("no completion after 100 waits of a second")
		}
		if err := r.Enter(true, 1e9); err != nil {
			t.Fatalf("Enter: %v", err)
		}
		head, tail := r.Completions()
		for i := head; i != tail; i++ {
			out = append(out, *r.CQE(i))
		}
		r.Release(tail)
	}
	return out
}

func TestNop(t *testing.T) {
	r := newTestRing(t)
	e := r.Next()
	e.Opcode, e.UserData = OpNop, 42
	cs := reap(t, r)
	if len(cs) != 1 || cs[0].UserData != 42 || cs[0].Res != 0 {
		t.Fatalf("completions %+v, want one with user data 42 and res 0", cs)
	}
}

func TestSendRecv(t *testing.T) {
	r := newTestRing(t)
	a, b := socketpair(t)
	msg := []byte("hello, ring")
	in := make([]byte, 64)
	e := r.Next()
	e.Opcode, e.FD, e.UserData = OpSend, int32(a), 1
	e.Addr, e.Len = uint64(uintptr(unsafe.Pointer(&msg[0]))), uint32(len(msg))
	e = r.Next()
	e.Opcode, e.FD, e.UserData = OpRecv, int32(b), 2
	e.Addr, e.Len = uint64(uintptr(unsafe.Pointer(&in[0]))), uint32(len(in))
	got := map[uint64]int32{}
	for len(got) < 2 {
		for _, c := range reap(t, r) {
			got[c.UserData] = c.Res
		}
	}
	runtime.KeepAlive(msg)
	runtime.KeepAlive(in)
	if got[1] != int32(len(msg)) {
		t.Errorf("send res %d, want %d", got[1], len(msg))
	}
	if n := got[2]; n != int32(len(msg)) || string(in[:n]) != string(msg) {
		t.Errorf("recv res %d, %q; want %q", n, in[:max(n, 0)], msg)
	}
}

func TestMultishotRecv(t *testing.T) {
	r := newTestRing(t)
	br, err := r.NewBufRing(4, 64)
	if err != nil {
		t.Skipf("provided buffer rings refused (Linux 5.19): %v", err)
	}
	defer br.Unmap()
	a, b := socketpair(t)
	e := r.Next()
	e.Opcode, e.FD, e.Flags = OpRecv, int32(b), SqeBufferSelect
	e.Ioprio = RecvMultishot
	e.UserData = 7
	if err := r.Enter(false, 0); err != nil {
		t.Fatal(err)
	}
	for _, msg := range []string{"first", "second", "third"} {
		if _, err := unix.Write(a, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		cs := reap(t, r)
		if len(cs) != 1 {
			t.Fatalf("%d completions for one write, want 1: %+v", len(cs), cs)
		}
		c := cs[0]
		if c.Res == -int32(unix.EINVAL) {
			t.Skip("multishot receive refused (Linux 6.0)")
		}
		if c.UserData != 7 || c.Res != int32(len(msg)) || c.Flags&CqeFBuffer == 0 || c.Flags&CqeFMore == 0 {
			t.Fatalf("completion %+v for %q: want user data 7, res %d, a buffer and more to come", c, msg, len(msg))
		}
		bid := uint16(c.Flags >> CqeBufferShift)
		if got := string(br.Buf(bid)[:c.Res]); got != msg {
			t.Fatalf("buffer %d holds %q, want %q", bid, got, msg)
		}
		br.Put(bid)
		br.Publish()
	}
}
