package pgsql

import (
	"context"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gbench/gbench/internal/testsrv"
)

// testConninfo is the shared server of the integration tests.
func testConninfo(t *testing.T) string {
	return testsrv.NeedPostgres(t)
}

// wrappedConn stands for a dialer's wrapper that gives its socket through
// NetConn, as the engine's epoll and io_uring connections do.
type wrappedConn struct{ net.Conn }

func (w *wrappedConn) NetConn() net.Conn { return w.Conn }

// hidingConn is a wrapper that does not say where its socket is.
type hidingConn struct{ net.Conn }

func getsockopt(t *testing.T, c net.Conn, level, opt int) int {
	t.Helper()
	tc, err := tcpConn(c)
	if err != nil || tc == nil {
		t.Fatalf("no TCP socket under %T: %v", c, err)
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var gerr error
	rc.Control(func(fd uintptr) { v, gerr = unix.GetsockoptInt(int(fd), level, opt) })
	if gerr != nil {
		t.Fatal(gerr)
	}
	return v
}

// TestSocketOptionsReachTheSocket connects with libpq's socket options,
// through the dial function given to Connect (wrapping its sockets as the
// engine does), and reads them back from the socket. The server must not
// receive them: tcp_user_timeout is also a server setting, which pgx
// would have set for the session.
func TestSocketOptionsReachTheSocket(t *testing.T) {
	conninfo := testConninfo(t) + " sslmode=disable tcp_user_timeout=4321 keepalives_idle=7 keepalives_interval=3 keepalives_count=4"
	cfg, err := ParseConfig(conninfo)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		return &wrappedConn{c}, err
	}
	conn, err := cfg.Connect(ctx, dial)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Net.Close()
	for _, o := range []struct {
		name       string
		level, opt int
		want       int
	}{
		{"TCP_USER_TIMEOUT", unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, 4321},
		{"SO_KEEPALIVE", unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		{"TCP_KEEPIDLE", unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, 7},
		{"TCP_KEEPINTVL", unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, 3},
		{"TCP_KEEPCNT", unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 4},
	} {
		if got := getsockopt(t, conn.Net, o.level, o.opt); got != o.want {
			t.Errorf("%s = %d, want %d", o.name, got, o.want)
		}
	}

	// The same through Open (pgx's own dialer), where a query can ask the
	// server what it received.
	cl, err := cfg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if got := getsockopt(t, cl.pc.Conn(), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT); got != 4321 {
		t.Errorf("Open: TCP_USER_TIMEOUT = %d, want 4321", got)
	}
	rows, err := cl.QueryText(ctx, "SELECT current_setting('tcp_user_timeout')")
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "0" {
		t.Errorf("the server's tcp_user_timeout is %s: the key went to the server", rows[0][0])
	}
}

func TestKeepalivesOff(t *testing.T) {
	cfg, err := ParseConfig(testConninfo(t) + " sslmode=disable keepalives=0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := cfg.Connect(ctx, nil)
	if err != nil {
		t.Fatal(err) // with keepalives sent to the server: FATAL unrecognized configuration parameter
	}
	defer conn.Net.Close()
	if got := getsockopt(t, conn.Net, unix.SOL_SOCKET, unix.SO_KEEPALIVE); got != 0 {
		t.Errorf("SO_KEEPALIVE = %d with keepalives=0", got)
	}
}

// TestSocketOptionsUnreachable: a dial whose connections hide their
// socket fails the connection instead of silently running without the
// options.
func TestSocketOptionsUnreachable(t *testing.T) {
	c, _ := net.Pipe()
	defer c.Close()
	for _, w := range []net.Conn{c, &wrappedConn{c}, &hidingConn{c}} {
		if err := (sockOpts{userTimeout: time.Second}).apply(w); err == nil {
			t.Errorf("no error for a %T", w)
		}
	}
}
