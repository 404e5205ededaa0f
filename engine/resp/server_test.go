package resp

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

// throwaway is a redis-server started for one test, with a password for the
// default user, an ACL user alice with a password and a user nopw without.
type throwaway struct {
	port int
	sock string
}

const (
	defaultPassword = "top-s3cret"
	alicePassword   = "alice-s3cret"
)

func startRedis(t *testing.T) throwaway {
	t.Helper()
	port := freePort(t)
	s := runRedis(t, "--port", strconv.Itoa(port))
	s.port = port
	return s
}

// runRedis starts redis-server with the common settings and args, and
// waits until it answers on its unix socket.
func runRedis(t *testing.T, args ...string) throwaway {
	t.Helper()
	bin := testsrv.NeedCommand(t, "redis-server", "Debian's redis-server")
	dir := t.TempDir()
	s := throwaway{sock: filepath.Join(dir, "redis.sock")}
	cmd := exec.Command(bin, append([]string{
		"--bind", "127.0.0.1", "--unixsocket", s.sock,
		"--dir", dir, "--save", "", "--appendonly", "no", "--logfile", filepath.Join(dir, "redis.log"),
		"--requirepass", defaultPassword,
		"--user", "alice", "on", ">" + alicePassword, "~*", "&*", "+@all",
		"--user", "nopw", "on", "nopass", "~*", "&*", "+@all"}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	waitReady(t, s.sock)
	return s
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitReady polls the server's socket until it answers a PING with any
// reply (NOAUTH included).
func waitReady(t *testing.T, sock string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			c := &client{conn: conn, rr: replyReader{conn: conn}}
			_, err = c.try("PING")
			conn.Close()
			if err == nil {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("redis-server at %s did not start", sock)
}

// client sends commands on a connection from Dial and renders the replies.
type client struct {
	conn net.Conn
	rr   replyReader
	buf  []byte
}

func dialClient(t *testing.T, url string) *client {
	t.Helper()
	o, err := ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := Dial(ctx, o)
	if err != nil {
		t.Fatalf("Dial(%s): %v", o.Redacted(), err)
	}
	t.Cleanup(func() { conn.Close() })
	return &client{conn: conn, rr: replyReader{conn: conn}}
}

func (c *client) try(args ...string) (string, error) {
	c.conn.SetDeadline(time.Now().Add(10 * time.Second))
	c.buf = AppendCommand(c.buf[:0], args...)
	if _, err := c.conn.Write(c.buf); err != nil {
		return "", err
	}
	if _, err := c.rr.next(); err != nil {
		return "", err
	}
	return render(c.rr.r.Values()), nil
}

// do runs a command and checks its rendered reply.
func (c *client) do(t *testing.T, want string, args ...string) {
	t.Helper()
	got, err := c.try(args...)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if got != want {
		t.Fatalf("%q: got %s, want %s", args, got, want)
	}
}
