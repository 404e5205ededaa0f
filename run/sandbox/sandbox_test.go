package sandbox

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/testsrv"
)

// needServers skips the test when the binaries o needs are missing, unless
// GBENCH_REQUIRE_SERVICES=1, which turns the skip into a failure.
func needServers(t *testing.T, o Options) {
	t.Helper()
	_, err := newFinder(os.Getenv).find(o)
	if err == nil && o.Postgres {
		_, err = lookupAccount(or(os.Getenv("GBENCH_SANDBOX_USER"), DefaultUser))
	}
	if err != nil {
		testsrv.Need(t, "%v", err)
	}
}

// baseDir is a fresh base directory the postgres user can enter when the
// tests run as root (t.TempDir makes 0700 directories).
func baseDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logTo returns a progress writer for t.
func logTo(t *testing.T) *lineWriter {
	return &lineWriter{fn: func(s string) { t.Log(s) }}
}

// lineWriter calls fn with each write, trimmed; safe for concurrent use.
type lineWriter struct {
	mu sync.Mutex
	fn func(string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fn(strings.TrimSpace(string(p)))
	return len(p), nil
}

func TestStartBoth(t *testing.T) {
	t.Parallel()
	o := Options{Postgres: true, Redis: true, MaxConnections: 42, SharedBuffers: "16MB",
		Settings: map[string]string{"work_mem": "8MB"}, Database: "gbench test", BaseDir: baseDir(t), Log: logTo(t)}
	needServers(t, o)
	ctx := context.Background()
	s, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, port := range []int{s.PostgresPort(), s.RedisPort()} {
		if port == 5432 || port == 6379 || port == 0 {
			t.Errorf("port %d: want a free non-default port", port)
		}
	}
	backend := checkPostgres(t, s)
	checkRedis(t, s)
	checkCgroups(t, s.PostgresCgroups(), s.PostgresPID(), backend)
	checkCgroups(t, s.RedisCgroups(), s.RedisPID())
	pc := s.PostgresCgroups()
	pids := []int{s.PostgresPID(), s.RedisPID(), backend}
	checkClose(t, s, pids)
	for _, dir := range []string{pc.V2, pc.Memory, pc.Blkio} { // CPU is gbench's own
		if _, err := os.Stat(dir); dir != "" && !os.IsNotExist(err) {
			t.Errorf("cgroup %s is still there after Close: %v", dir, err)
		}
	}
}

// checkCgroups checks that each of the server's cgroup directories holds
// every process given: the server and, for PostgreSQL, a backend forked
// after the server was moved there.
func checkCgroups(t *testing.T, c Cgroups, pids ...int) {
	t.Helper()
	if c.V2 == "" && c.Memory == "" {
		t.Logf("no cgroup for the server: %s", c.Note)
		return
	}
	for _, dir := range []string{c.V2, c.Memory, c.Blkio, c.CPU} {
		if dir == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		if err != nil {
			t.Error(err)
			continue
		}
		procs := strings.Fields(string(b))
		for _, pid := range pids {
			if !slices.Contains(procs, strconv.Itoa(pid)) {
				t.Errorf("%s/cgroup.procs = %v, want %d among them", dir, procs, pid)
			}
		}
	}
}

// checkPostgres runs queries over TCP and the socket and returns the pid of
// a backend that is still connected.
func checkPostgres(t *testing.T, s *Sandbox) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgsql.Open(ctx, s.PostgresConnString())
	if err != nil {
		t.Fatalf("connect %s: %v", s.PostgresConnString(), err)
	}
	t.Cleanup(func() { conn.Close() })
	want := map[string]string{
		"SELECT 1":                             "1",
		"SHOW max_connections":                 "42",
		"SHOW shared_buffers":                  "16MB",
		"SHOW work_mem":                        "8MB",
		"SHOW fsync":                           "on",
		"SHOW synchronous_commit":              "on",
		"SHOW full_page_writes":                "on",
		"SHOW listen_addresses":                "127.0.0.1",
		"SELECT current_database()":            "gbench test",
		"SHOW server_version":                  s.PostgresVersion(),
		"SELECT current_setting('lc_collate')": "C",
	}
	for sql, w := range want {
		if got := queryOne(t, conn, sql); got != w {
			t.Errorf("%s = %q, want %q", sql, got, w)
		}
	}
	hasSettings(t, s.PostgresSettings(), map[string]string{"max_connections": "42", "shared_buffers": "16MB", "fsync": "on", "work_mem": "8MB"})
	if d := s.Durability(); d != "on" {
		t.Errorf("Durability() = %q, want on (the default)", d)
	}
	if ppid := parentPID(t, int(conn.PID())); ppid != s.PostgresPID() {
		t.Errorf("backend %d has parent %d, want postmaster %d", conn.PID(), ppid, s.PostgresPID())
	}
	if u := s.PostgresURL(); u != "postgres://postgres@127.0.0.1:"+strconv.Itoa(s.PostgresPort())+"/gbench%20test?sslmode=disable" {
		t.Errorf("PostgresURL() = %q", u)
	}
	for _, cs := range []string{s.PostgresURL(), connString(s.PostgresSocketDir(), s.PostgresPort(), "gbench test")} {
		c, err := pgsql.Open(ctx, cs)
		if err != nil {
			t.Fatalf("connect %s: %v", cs, err)
		}
		if db := queryOne(t, c, "SELECT current_database()"); db != "gbench test" {
			t.Errorf("%s: connected to %q", cs, db)
		}
		c.Close()
	}
	return int(conn.PID())
}

// queryOne returns the single value sql yields.
func queryOne(t *testing.T, conn *pgsql.Client, sql string) string {
	t.Helper()
	rows, err := conn.QueryText(context.Background(), sql)
	if err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		t.Fatalf("%s: rows %q, error %v", sql, rows, err)
	}
	return rows[0][0]
}

// hasSettings checks that got holds every name/value in want.
func hasSettings(t *testing.T, got []Setting, want map[string]string) {
	t.Helper()
	m := make(map[string]string)
	for _, s := range got {
		m[s.Name] = s.Value
	}
	for name, w := range want {
		if v, ok := m[name]; !ok || v != w {
			t.Errorf("setting %s = %q (present %v), want %q; all: %v", name, v, ok, w, got)
		}
	}
}

// parentPID reads the parent of pid from /proc; it skips off Linux.
func parentPID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	// Fields after the parenthesised command name: state, ppid, ...
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	ppid, _ := strconv.Atoi(fields[1])
	return ppid
}

// checkRedis speaks raw RESP to the server.
func checkRedis(t *testing.T, s *Sandbox) {
	t.Helper()
	if u := s.RedisURL(); u != "redis://127.0.0.1:"+strconv.Itoa(s.RedisPort())+"/0" {
		t.Errorf("RedisURL() = %q", u)
	}
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(s.RedisPort()), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "+PONG\r\n" {
		t.Errorf("PING: %q, %v", line, err)
	}
	if v := s.RedisVersion(); v == "" || v[0] < '0' || v[0] > '9' {
		t.Errorf("RedisVersion() = %q", v)
	}
	hasSettings(t, s.RedisSettings(), map[string]string{"save": "", "appendonly": "no", "bind": "127.0.0.1"})
}

// checkClose closes s twice and checks that the directory and processes
// are gone.
func checkClose(t *testing.T, s *Sandbox, pids []int) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	checkGone(t, s, pids)
}

// checkGone checks that s is done, its directory removed and pids dead.
func checkGone(t *testing.T, s *Sandbox, pids []int) {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("sandbox not done")
	}
	if _, err := os.Stat(s.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists (%v)", s.Dir(), err)
	}
	for _, pid := range pids {
		if pid != 0 && alive(pid) {
			t.Errorf("pid %d still alive", pid)
		}
	}
}

func TestCancelDuringStart(t *testing.T) {
	t.Parallel()
	needServers(t, Options{Postgres: true})
	tests := []struct {
		name string
		file string // cancel once this file exists in the sandbox directory
	}{
		// Before initdb runs: the directory is there, the cluster is not.
		{"before initdb", ownerPIDFile},
		// While initdb runs: it is stopped with SIGTERM and cleans up.
		{"during initdb", "pgdata/PG_VERSION"},
		// While the postmaster starts: it gets an immediate shutdown.
		{"during postgres start", "postgres.log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base := baseDir(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go cancelOnFile(ctx, cancel, filepath.Join(base, dirPrefix+"*", tt.file))
			s, err := Start(ctx, Options{Postgres: true, BaseDir: base, Log: logTo(t)})
			if !errors.Is(err, context.Canceled) || s != nil {
				t.Fatalf("Start = %v, %v; want context.Canceled", s, err)
			}
			if left, _ := os.ReadDir(base); len(left) != 0 {
				t.Errorf("left behind in %s: %v", base, left)
			}
		})
	}
}

// cancelOnFile calls cancel once a file matches pattern, or when ctx ends.
func cancelOnFile(ctx context.Context, cancel func(), pattern string) {
	defer cancel()
	for ctx.Err() == nil {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return
		}
		time.Sleep(time.Millisecond) // watching another process's files: no event to wait on
	}
}

func TestCancelAfterStart(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := Options{Redis: true, BaseDir: baseDir(t), Log: logTo(t)}
	needServers(t, o)
	s, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	pid := s.RedisPID()
	cancel()
	checkGone(t, s, []int{pid})
	if err := s.Close(); err != nil {
		t.Errorf("Close after cancel: %v", err)
	}
}

func TestBadSettingShowsLog(t *testing.T) {
	t.Parallel()
	base := baseDir(t)
	// Redis fails as PostgreSQL would, and in a tenth of the time.
	o := Options{Redis: true, BaseDir: base, Log: logTo(t),
		RedisSettings: map[string]string{"no-such-directive": "1"}}
	needServers(t, o)
	_, err := Start(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "redis.log:\n") || !strings.Contains(err.Error(), "Bad directive") {
		t.Fatalf("Start error = %v; want the server log's complaint", err)
	}
	if left, _ := os.ReadDir(base); len(left) != 0 {
		t.Errorf("left behind in %s: %v", base, left)
	}
}
