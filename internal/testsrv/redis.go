package testsrv

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Redis is a throwaway redis-server (saving and the append-only file off).
// Its methods fail the test on error; none is safe for concurrent use.
type Redis struct {
	// Port is the TCP port on 127.0.0.1.
	Port int
	// TLSPort is the TLS port on 127.0.0.1 of a StartRedisTLS server.
	TLSPort int
	// Log is the server log.
	Log string

	t        testing.TB
	bin      string
	args     []string // the command line, as started
	cmd      *exec.Cmd
	password string      // --requirepass, for Do
	tls      *tls.Config // for Do, on a server that serves TLS only
}

// redisBin finds redis-server on PATH or in /usr/bin.
func redisBin(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/redis-server"); err == nil {
		return "/usr/bin/redis-server"
	}
	need(t, "redis-server not found on PATH nor in /usr/bin (apt install redis-server)")
	return ""
}

// StartRedis starts redis-server on a free port, with the extra
// directives args ("--requirepass", "pw", ...), and returns once it
// answers PING. It is killed when the test ends.
func StartRedis(t testing.TB, args ...string) *Redis {
	t.Helper()
	return startRedis(t, nil, args...)
}

// startRedis is StartRedis; with a non-nil client config the server
// serves TLS only (--port 0, --tls-port Port) and Do speaks TLS with it.
func startRedis(t testing.TB, client *tls.Config, args ...string) *Redis {
	t.Helper()
	dir := newDir(t, nil)
	r := &Redis{t: t, bin: redisBin(t), Log: filepath.Join(dir, "redis.log"), tls: client}
	for i, a := range args {
		if a == "--requirepass" && i+1 < len(args) {
			r.password = args[i+1]
		}
	}
	// A cluster node also listens on its port + 10000 (the cluster bus),
	// which freePort does not reserve. A port taken between freePort and
	// the server's bind (by another test's server or any connection's
	// ephemeral port) makes the server abort: it then starts again on new
	// ports, a few times.
	bus := slices.Contains(args, "--cluster-enabled")
	t.Cleanup(r.kill)
	for attempt := 1; ; attempt++ {
		r.Port = freePort(t)
		for bus && !portFree(r.Port+clusterBusOffset) {
			r.Port = freePort(t)
		}
		listen := []string{"--port", strconv.Itoa(r.Port)}
		if client != nil {
			listen = []string{"--port", "0", "--tls-port", strconv.Itoa(r.Port)}
			r.TLSPort = r.Port
		}
		r.args = append(append(listen, "--bind", "127.0.0.1", "--dir", dir,
			"--save", "", "--appendonly", "no", "--logfile", r.Log), args...)
		up, busy := r.start()
		switch {
		case up:
			return r
		case busy && attempt < 3:
			r.kill()
			r.cmd = nil
			os.Remove(r.Log)
			continue
		}
		t.Fatalf("redis-server on %s did not answer PING\n%s", r.Addr(), tail(r.Log))
	}
}

// clusterBusOffset is how far above its port a cluster node listens for
// the cluster bus.
const clusterBusOffset = 10000

// portFree reports whether port of 127.0.0.1 can be listened on now.
func portFree(port int) bool {
	if port > 65535 {
		return false
	}
	ln, err := net.Listen("tcp", addr(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// Addr is "127.0.0.1:<Port>".
func (r *Redis) Addr() string { return addr(r.Port) }

// URL is "redis://127.0.0.1:<Port>/0".
func (r *Redis) URL() string { return "redis://" + r.Addr() + "/0" }

// Start starts the stopped server again, on the same port and with the
// same directives, and waits until it answers PING.
func (r *Redis) Start() {
	r.t.Helper()
	if up, _ := r.start(); !up {
		r.t.Fatalf("redis-server on %s did not answer PING\n%s", r.Addr(), tail(r.Log))
	}
}

// start starts the server and waits until it answers PING (up) or its
// log says it could not listen (busy: a port was taken), for at most 20 s.
func (r *Redis) start() (up, busy bool) {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, r.args...)
	if err := r.cmd.Start(); err != nil {
		need(r.t, "start redis-server: %v", err)
	}
	waitFor(20*time.Second, func() bool {
		if _, err := r.Do("PING"); err == nil {
			up = true
			return true
		}
		log, _ := os.ReadFile(r.Log)
		busy = bytes.Contains(log, []byte("Address already in use"))
		return busy
	})
	return up, busy
}

// Stop stops the server (SIGTERM) and waits for it to exit. Its data is
// lost: nothing is saved.
func (r *Redis) Stop() {
	r.t.Helper()
	if r.cmd == nil {
		return
	}
	r.cmd.Process.Signal(os.Interrupt)
	r.cmd.Wait()
	r.cmd = nil
}

// Restart is Stop then Start.
func (r *Redis) Restart() {
	r.t.Helper()
	r.Stop()
	r.Start()
}

func (r *Redis) kill() {
	if r.cmd != nil {
		r.cmd.Process.Kill()
		r.cmd.Wait()
	}
}

// Replica starts another redis-server replicating r (--replicaof) and
// waits until its link to r is up.
func (r *Redis) Replica(t testing.TB, args ...string) *Redis {
	t.Helper()
	rep := StartRedis(t, append([]string{"--replicaof", "127.0.0.1", strconv.Itoa(r.Port)}, args...)...)
	if !waitFor(20*time.Second, func() bool {
		info, _ := rep.Do("INFO", "replication")
		return strings.Contains(info, "master_link_status:up")
	}) {
		t.Fatalf("replica %s never linked to %s\n%s", rep.Addr(), r.Addr(), tail(rep.Log))
	}
	return rep
}

// Do is Command on r, authenticated with the --requirepass r was started
// with.
func (r *Redis) Do(args ...string) (string, error) {
	return command(r.Addr(), r.password, r.tls, args...)
}

// Command sends one command to the server at addr on a new connection and
// returns its reply as text: a status or bulk string as it is, an integer
// in decimal, an array's elements one a line. An error reply is an error.
// It waits up to 2 s.
func Command(addr string, args ...string) (string, error) { return command(addr, "", nil, args...) }

// command is Command, after AUTH password when password is not "", over
// TLS when conf is not nil.
func command(addr, password string, conf *tls.Config, args ...string) (string, error) {
	d := &net.Dialer{Timeout: 2 * time.Second}
	var c net.Conn
	var err error
	if conf != nil {
		c, err = tls.DialWithDialer(d, "tcp", addr, conf)
	} else {
		c, err = d.Dial("tcp", addr)
	}
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	var b strings.Builder
	if password != "" {
		appendCommand(&b, "AUTH", password)
	}
	appendCommand(&b, args...)
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	br := bufio.NewReader(c)
	if password != "" {
		if _, err := readReply(br); err != nil {
			return "", fmt.Errorf("AUTH: %w", err)
		}
	}
	return readReply(br)
}

func appendCommand(b *strings.Builder, args ...string) {
	fmt.Fprintf(b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(b, "$%d\r\n%s\r\n", len(a), a)
	}
}

// readReply reads one RESP2 reply.
func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty reply line")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", fmt.Errorf("%s", line[1:])
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		var parts []string
		for range max(n, 0) {
			s, err := readReply(r)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// Signal sends sig to the running server (syscall.SIGSTOP freezes it, as
// a hung peer; SIGCONT thaws it).
func (r *Redis) Signal(sig os.Signal) error { return r.cmd.Process.Signal(sig) }
