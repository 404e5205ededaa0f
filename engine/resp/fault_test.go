package resp

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fakeServer accepts one connection, reads the handshake and then does
// whatever answer says, for failures a real server does not produce on
// demand. The handshake bytes are sent on the returned channel.
func fakeServer(t *testing.T, answer func(net.Conn)) (string, <-chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		buf := make([]byte, 4096)
		n, _ := conn.Read(buf)
		got <- string(buf[:n])
		answer(conn)
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
	return l.Addr().String(), got
}

func fakeOptions(addr string) Options {
	return Options{Network: "tcp", Addr: addr, Username: "bob", Password: "s3cret", DB: 7,
		DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second}
}

func TestDialSendsPipelinedHandshake(t *testing.T) {
	addr, got := fakeServer(t, func(c net.Conn) { c.Write([]byte("+OK\r\n+OK\r\n")) })
	conn, err := Dial(context.Background(), fakeOptions(addr))
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	want := "*3\r\n$4\r\nAUTH\r\n$3\r\nbob\r\n$6\r\ns3cret\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n7\r\n"
	if s := <-got; s != want {
		t.Errorf("handshake %q, want %q", s, want)
	}
}

func TestDialFailures(t *testing.T) {
	tests := []struct {
		name   string
		answer func(net.Conn)
		want   string
	}{
		// Each case answers the AUTH + SELECT handshake its own way.
		{"server echoes the password", reply("-ERR bad password s3cret\r\n"), "redis AUTH failed: ERR bad password xxxxx"},
		{"blob error", reply("!9\r\nNOPE AUTH\r\n"), "redis AUTH failed: NOPE AUTH"},
		{"SELECT refused", reply("+OK\r\n-ERR DB index is out of range\r\n"), "redis SELECT failed: ERR DB index is out of range"},
		{"closed", reply("+OK\r\n"), "redis SELECT: connection closed by the server"},
		{"extra data", reply("+OK\r\n+OK\r\n+MORE\r\n"), "redis SELECT: unexpected data after the replies"},
		{"garbage", reply("hello\r\n"), "redis AUTH: resp: invalid type byte 'h' at offset 0"},
		{"huge reply", reply("$1048577\r\n"), "redis AUTH: reply longer than 1048576 bytes"},
	}
	for _, tt := range tests {
		addr, _ := fakeServer(t, tt.answer)
		_, err := Dial(context.Background(), fakeOptions(addr))
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %s", tt.name, err, tt.want)
		}
	}
}

// reply answers with s in one write, then closes the connection.
func reply(s string) func(net.Conn) {
	return func(c net.Conn) { c.Write([]byte(s)) }
}

func TestDialReadTimeout(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	addr, _ := fakeServer(t, func(net.Conn) { <-hold })
	o := fakeOptions(addr)
	o.ReadTimeout = 20 * time.Millisecond
	_, err := Dial(context.Background(), o)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.HasPrefix(err.Error(), "redis AUTH: ") {
		t.Errorf("error %v, want a timeout of AUTH", err)
	}
}

func TestDialCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hold := make(chan struct{})
	defer close(hold)
	addr, got := fakeServer(t, func(net.Conn) { <-hold })
	go func() {
		<-got // the handshake has been sent: Dial is waiting for the reply
		cancel()
	}()
	o := fakeOptions(addr)
	o.ReadTimeout = 0
	_, err := Dial(ctx, o)
	if !errors.Is(err, context.Canceled) || err.Error() != "redis AUTH: context canceled" {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestDialRefused(t *testing.T) {
	o := fakeOptions("127.0.0.1:" + strconv.Itoa(freePort(t)))
	_, err := Dial(context.Background(), o)
	want := "redis connect to redis://bob:xxxxx@" + o.Addr + "/7?read_timeout=5s: dial tcp " + o.Addr + ": connect: connection refused"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	o.Network = "udp"
	if _, err := Dial(context.Background(), o); err == nil || !strings.Contains(err.Error(), `unsupported network "udp"`) {
		t.Errorf("udp: %v", err)
	}
}
