package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gbench/gbench/engine/resp"
)

// startRedis starts redis-server and waits for PING.
func (s *Sandbox) startRedis(ctx context.Context, bin string) error {
	if err := os.Mkdir(s.redisDir(), 0o700); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	for attempt := 1; ; attempt++ {
		err := s.launchRedis(ctx, bin)
		if !errors.Is(err, errPortInUse) || attempt == portAttempts {
			return err
		}
		s.logf("port %d was taken; trying another", s.redisPort)
	}
}

// launchRedis starts redis-server as a child on a free port and waits until
// it answers PING. It runs as gbench's own user: unlike PostgreSQL, Redis
// accepts root. SIGKILL is its death signal: it keeps nothing worth saving.
func (s *Sandbox) launchRedis(ctx context.Context, bin string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.redisPort = port
	logPath := filepath.Join(s.dir, "redis.log")
	s.logf("redis-server %s", bin)
	p, cg, v1, err := s.spawnServer("redis", func() *exec.Cmd { return exec.Command(bin, s.redisArgs()...) }, logPath, account{}, syscall.SIGKILL)
	if err != nil {
		return err
	}
	err = waitReady(ctx, p, s.opts.StartTimeout, logPath, func(ctx context.Context) error {
		return s.probeRedis(ctx, p.pid())
	})
	if err == nil {
		err = s.describeRedis(ctx)
	}
	if err != nil {
		return errors.Join(err, p.stop(stopTimeout, syscall.SIGKILL), cg.remove(), v1.remove())
	}
	s.redis, s.redisCgroup, s.redisV1 = p, cg, v1
	s.logf("redis %s (pid %d) on 127.0.0.1:%d", s.redisVersion, p.pid(), port)
	return writePID(s.dir, redisPIDFile, p.pid())
}

// redisDir is the working directory given to redis-server.
func (s *Sandbox) redisDir() string { return filepath.Join(s.dir, "redis") }

// redisConfig is every directive passed to redis-server, by name. Saving
// and the append-only file are off: the data is thrown away.
func (s *Sandbox) redisConfig() map[string]string {
	m := map[string]string{"save": "", "appendonly": "no"}
	for k, v := range s.opts.RedisSettings {
		m[k] = v
	}
	m["port"] = strconv.Itoa(s.redisPort)
	m["bind"] = strings.Join(s.listenAddrs(), " ")
	if len(s.opts.Listen) > 0 {
		m["protected-mode"] = "no"
	}
	m["dir"] = s.redisDir()
	m["daemonize"] = "no"
	m["logfile"] = "" // stdout, which is the log file
	return m
}

// redisArgs is redis-server's command line, directives in name order.
func (s *Sandbox) redisArgs() []string {
	cfg := s.redisConfig()
	var args []string
	for _, name := range sortedKeys(cfg) {
		args = append(args, "--"+name, cfg[name])
	}
	return args
}

// probeRedis checks that the server on the port answers PING and is ours:
// another process may have taken the port between freePort and our bind.
func (s *Sandbox) probeRedis(ctx context.Context, pid int) error {
	conn, c, err := dialRedis(ctx, s.redisAddr())
	if err != nil {
		return err
	}
	defer conn.Close()
	if reply, err := c.Text("PING"); err != nil || reply != "PONG" {
		return fmt.Errorf("PING: reply %q, error %v", reply, err)
	}
	info, err := c.Info("server")
	if err != nil {
		return err
	}
	if got := info["process_id"]; got != strconv.Itoa(pid) {
		return fmt.Errorf("the server on %s is process %s, not ours (%d)", s.redisAddr(), got, pid)
	}
	return nil
}

// describeRedis records the server's version and effective directives.
func (s *Sandbox) describeRedis(ctx context.Context) error {
	conn, c, err := dialRedis(ctx, s.redisAddr())
	if err != nil {
		return fmt.Errorf("sandbox: redis: %w", err)
	}
	defer conn.Close()
	info, err := c.Info("server")
	if err != nil {
		return fmt.Errorf("sandbox: redis INFO: %w", err)
	}
	s.redisVersion = info["redis_version"]
	cfg := s.redisConfig()
	delete(cfg, "dir")
	delete(cfg, "logfile")
	for _, name := range sortedKeys(cfg) {
		reply, err := c.Text("CONFIG", "GET", name)
		k, v, ok := strings.Cut(reply, "\n")
		if err != nil || !ok || k != name {
			return fmt.Errorf("sandbox: redis CONFIG GET %s: reply %q, error %v", name, reply, err)
		}
		s.redisSettings = append(s.redisSettings, Setting{Name: name, Value: v})
	}
	return nil
}

// redisTimeout bounds one exchange with a starting server.
const redisTimeout = 2 * time.Second

// dialRedis connects to addr for a few checks; the caller closes conn.
func dialRedis(ctx context.Context, addr string) (conn net.Conn, c *resp.Client, err error) {
	var d net.Dialer
	if conn, err = d.DialContext(ctx, "tcp", addr); err != nil {
		return nil, nil, err
	}
	c = resp.NewClient(conn)
	c.SetTimeout(redisTimeout)
	return conn, c, nil
}

// redisAddr is the server's TCP address.
func (s *Sandbox) redisAddr() string { return "127.0.0.1:" + strconv.Itoa(s.redisPort) }

// RedisURL is the URL of database 0, e.g. "redis://127.0.0.1:41235/0"; ""
// without Redis. No password is needed.
func (s *Sandbox) RedisURL() string {
	if s.redis == nil {
		return ""
	}
	return "redis://" + s.redisAddr() + "/0"
}

// RedisPort is the server's TCP port on 127.0.0.1; 0 without Redis.
func (s *Sandbox) RedisPort() int {
	if s.redis == nil {
		return 0
	}
	return s.redisPort
}

// RedisPID is redis-server's process id; 0 without Redis.
func (s *Sandbox) RedisPID() int {
	if s.redis == nil {
		return 0
	}
	return s.redis.pid()
}

// RedisVersion is INFO server's redis_version, e.g. "7.0.15"; "" without
// Redis.
func (s *Sandbox) RedisVersion() string { return s.redisVersion }

// RedisSettings returns the effective values (CONFIG GET) of the directives
// the sandbox passed, except dir and logfile, sorted by name. The slice is
// new on each call.
func (s *Sandbox) RedisSettings() []Setting { return append([]Setting(nil), s.redisSettings...) }
