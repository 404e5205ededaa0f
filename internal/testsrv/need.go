package testsrv

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// The test environment: the machine's shared servers and the reference
// tools. Each Need* function returns what the test needs, or skips the
// test saying what is missing, or fails it when GBENCH_REQUIRE_SERVICES=1
// (Need decides). A test that compares with pgbench or redis-benchmark
// calls NeedPgbench15 or NeedRedisBenchmark: it is then either a
// comparison or a visible skip, never a one-sided check.

// DefaultPostgres is the shared PostgreSQL the tests use when
// GBENCH_TEST_PG is unset.
const DefaultPostgres = "host=127.0.0.1 port=5432 user=postgres dbname=test"

// DefaultRedis is the shared Redis the tests use when GBENCH_TEST_REDIS
// is unset.
const DefaultRedis = "redis://127.0.0.1:6379/0"

// needWait bounds how long a check waits for a shared server to answer:
// a server on this machine answers at once when it is up, and one that
// is down refuses at once, so this only bounds a host that drops packets.
const needWait = 5 * time.Second

// PostgresConninfo is GBENCH_TEST_PG, or DefaultPostgres.
func PostgresConninfo() string {
	if s := os.Getenv("GBENCH_TEST_PG"); s != "" {
		return s
	}
	return DefaultPostgres
}

// RedisURL is GBENCH_TEST_REDIS, or DefaultRedis.
func RedisURL() string {
	if s := os.Getenv("GBENCH_TEST_REDIS"); s != "" {
		return s
	}
	return DefaultRedis
}

// NeedPostgres returns the connection string of the shared PostgreSQL
// (PostgresConninfo) once pg_isready says it accepts connections. libpq
// reads the string, so it means what it means to pgbench and psql; the
// PG* variables fill what it leaves out. A server that answers but then
// refuses the test's connection (a wrong password, no such database)
// fails the test where it connects: that is a broken setup, not a
// missing service.
func NeedPostgres(t testing.TB) string {
	t.Helper()
	conninfo := PostgresConninfo()
	isready, err := exec.LookPath("pg_isready")
	if err != nil {
		Need(t, "no pg_isready (Debian's postgresql-client) to see whether the PostgreSQL of GBENCH_TEST_PG is up")
	}
	ctx, cancel := context.WithTimeout(context.Background(), needWait+time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, isready, "-d", conninfo, "-t", fmt.Sprint(int(needWait/time.Second))).CombinedOutput()
	if err != nil {
		// pg_isready's output names host and port only, never a password.
		Need(t, "PostgreSQL not reachable (pg_isready: %v: %s); set GBENCH_TEST_PG", err, strings.TrimSpace(string(out)))
	}
	return conninfo
}

// NeedRedis returns the URL of the shared Redis (RedisURL) once it
// answers a PING (after AUTH when the URL has a password). redis://,
// rediss:// (certificates unchecked: this only asks whether something
// answers) and unix:// URLs are understood.
func NeedRedis(t testing.TB) string {
	t.Helper()
	u := RedisURL()
	if err := pingRedis(u); err != nil {
		Need(t, "Redis not reachable (%v); set GBENCH_TEST_REDIS", err)
	}
	return u
}

// pingRedis dials the server of a Redis URL and sends PING.
func pingRedis(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("GBENCH_TEST_REDIS is not a URL")
	}
	d := net.Dialer{Timeout: needWait}
	var c net.Conn
	switch u.Scheme {
	case "redis", "rediss":
		host := u.Host
		if u.Port() == "" {
			host = net.JoinHostPort(u.Hostname(), "6379")
		}
		if u.Scheme == "rediss" {
			c, err = tls.DialWithDialer(&d, "tcp", host, &tls.Config{InsecureSkipVerify: true})
		} else {
			c, err = d.Dial("tcp", host)
		}
	case "unix":
		c, err = d.Dial("unix", u.Path)
	default:
		return fmt.Errorf("GBENCH_TEST_REDIS has scheme %q, not redis, rediss or unix", u.Scheme)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(needWait))
	var b strings.Builder
	if pw, ok := u.User.Password(); ok && pw != "" {
		if name := u.User.Username(); name != "" {
			appendCommand(&b, "AUTH", name, pw)
		} else {
			appendCommand(&b, "AUTH", pw)
		}
	}
	appendCommand(&b, "PING")
	if _, err := c.Write([]byte(b.String())); err != nil {
		return err
	}
	// Any reply, even an error one (NOAUTH), says a server is there; the
	// test's own connection then says what is wrong with the setup.
	_, err = bufio.NewReader(c).ReadString('\n')
	return err
}

var pgbench15 struct {
	once      sync.Once
	path, why string
}

// NeedPgbench15 returns the path of the reference pgbench, PostgreSQL
// 15's: GBENCH_PGBENCH, else the pgbench on PATH, checked with
// --version. When it is Debian's wrapper script and the versioned binary
// is where Debian puts it, that binary is returned (the wrapper costs a
// Perl start per run).
func NeedPgbench15(t testing.TB) string {
	t.Helper()
	pgbench15.once.Do(func() { pgbench15.path, pgbench15.why = findPgbench15() })
	if pgbench15.path == "" {
		Need(t, "no reference pgbench 15 (%s); install postgresql-client-15 or set GBENCH_PGBENCH", pgbench15.why)
	}
	return pgbench15.path
}

func findPgbench15() (path, why string) {
	explicit := os.Getenv("GBENCH_PGBENCH")
	path = explicit
	if path == "" {
		p, err := exec.LookPath("pgbench")
		if err != nil {
			return "", "pgbench is not on PATH"
		}
		path = p
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("%s --version: %v", path, err)
	}
	m := regexp.MustCompile(`\(PostgreSQL\) (\d+)`).FindSubmatch(out)
	if m == nil || string(m[1]) != "15" {
		return "", fmt.Sprintf("%s is not pgbench 15: %q", path, strings.TrimSpace(string(out)))
	}
	direct := "/usr/lib/postgresql/15/bin/pgbench"
	if _, err := os.Stat(direct); err == nil && explicit == "" {
		path = direct
	}
	return path, ""
}

// NeedRedisBenchmark returns the path of redis-benchmark, the reference
// for the \resp side.
func NeedRedisBenchmark(t testing.TB) string {
	t.Helper()
	return NeedCommand(t, "redis-benchmark", "Debian's redis-tools")
}

// NeedRedisCLI returns the path of redis-cli.
func NeedRedisCLI(t testing.TB) string {
	t.Helper()
	return NeedCommand(t, "redis-cli", "Debian's redis-tools")
}

// NeedCommand returns the path of the program name on PATH; from says
// where it comes from ("Debian's prometheus"), for the message.
func NeedCommand(t testing.TB, name, from string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Need(t, "no %s on PATH (%s)", name, from)
	}
	return p
}
