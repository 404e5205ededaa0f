package resp

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// scripted serves one connection: for each command it reads, it writes the
// next canned reply, then closes after the last one.
func scripted(t *testing.T, replies ...string) *Client {
	t.Helper()
	client, server := net.Pipe()
	t.Cleanup(func() { client.Close() })
	go func() {
		defer server.Close()
		var r Reader
		var buf []byte
		tmp := make([]byte, 4096)
		for _, reply := range replies {
			for {
				n, err := r.Parse(buf)
				if err != nil {
					return
				}
				if n > 0 {
					buf = buf[n:]
					break
				}
				m, err := server.Read(tmp)
				if err != nil {
					return
				}
				buf = append(buf, tmp[:m]...)
			}
			if _, err := io.WriteString(server, reply); err != nil {
				return
			}
		}
	}()
	return NewClient(client)
}

func TestClientText(t *testing.T) {
	big := strings.Repeat("v", 100<<10) // larger than the first buffer
	c := scripted(t,
		"+PONG\r\n",
		":42\r\n",
		"*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n",
		"$"+itoa(len(big))+"\r\n"+big+"\r\n",
		"$-1\r\n",
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"PING"}, "PONG"},
		{[]string{"INCR", "n"}, "42"},
		{[]string{"CONFIG", "GET", "maxmemory"}, "maxmemory\n0"},
		{[]string{"GET", "big"}, big},
		{[]string{"GET", "missing"}, ""},
	} {
		got, err := c.Text(tc.args...)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if got != tc.want {
			t.Fatalf("%q: got %.40q (%d bytes), want %.40q", tc.args, got, len(got), tc.want)
		}
	}
}

func TestClientErrorReply(t *testing.T) {
	c := scripted(t, "-ERR unknown command 'NOPE'\r\n", "+OK\r\n")
	_, _, err := c.Call("NOPE")
	if err == nil || err.Error() != "redis NOPE: ERR unknown command 'NOPE'" {
		t.Fatalf("got %v, want the error reply naming the command", err)
	}
	// The connection stays usable after an error reply.
	if got, err := c.Text("PING"); err != nil || got != "OK" {
		t.Fatalf("after an error reply: %q, %v", got, err)
	}
}

func TestClientPipelined(t *testing.T) {
	c := scripted(t, "+OK\r\n", ":2\r\n", "-ERR no\r\n")
	c.Send("SET", "a", "1")
	c.Send("INCR", "b")
	c.SendWith(func(out []byte) []byte {
		out = AppendArrayHeader(out, 1)
		return AppendBulkString(out, "BAD")
	})
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for range 3 {
		vals, top, err := c.Reply()
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, vals[top].Kind)
	}
	if kinds[0] != KindSimple || kinds[1] != KindInt || kinds[2] != KindError {
		t.Fatalf("reply kinds %v, want simple, int, error (an error reply is a value here)", kinds)
	}
}

func TestClientInfo(t *testing.T) {
	info := "# Server\r\nredis_version:7.0.15\r\nprocess_id:12\r\n\r\n# CPU\r\nused_cpu_sys:1.5\r\n"
	c := scripted(t, "$"+itoa(len(info))+"\r\n"+info+"\r\n")
	m, err := c.Info("server", "cpu")
	if err != nil {
		t.Fatal(err)
	}
	if m["redis_version"] != "7.0.15" || m["process_id"] != "12" || m["used_cpu_sys"] != "1.5" || len(m) != 3 {
		t.Fatalf("got %v", m)
	}
}

func TestClientTruncatedReply(t *testing.T) {
	c := scripted(t, "$10\r\nabc")
	if _, _, err := c.Call("GET", "k"); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestClientTimeoutAndBind(t *testing.T) {
	client, server := net.Pipe() // a server that never answers
	defer server.Close()
	defer client.Close()
	go io.Copy(io.Discard, server)
	c := NewClient(client)
	c.SetTimeout(20 * time.Millisecond)
	var ne net.Error
	if _, _, err := c.Call("PING"); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("SetTimeout: got %v, want a timeout", err)
	}

	c = NewClient(client)
	ctx, cancel := context.WithCancel(context.Background())
	undo := c.Bind(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, _, err := c.Call("PING"); err == nil {
		t.Fatal("Bind: a call on a cancelled context succeeded")
	}
	undo()
}

func itoa(n int) string { return strconv.Itoa(n) }
