package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// workloadDir is the bundled workloads, seen from this package's directory.
const workloadDir = "../../workloads/"

func TestSandboxArgErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		// gbench's options before "--"
		{[]string{"-c", "4"}, `gbench: error: unknown shorthand flag: 'c' in -c; gbench's own options go after "--", as in: gbench sandbox -- -c 4 -f script.sql`},
		// a stray argument
		{[]string{"mget64.sql"}, `gbench: error: unexpected argument "mget64.sql"; gbench's own options go after "--"`},
		// the sandbox's own checks, in gbench's words
		{[]string{"--items", "100"}, `gbench: error: --items must be in range 128..2147483647`},
		{[]string{"--value-size", "big"}, `gbench: error: invalid value "big" for option --value-size`},
	} {
		out := runGbench(append([]string{"sandbox"}, c.args...)...)
		if out.code != exitUsage || !strings.HasPrefix(out.stderr, c.want) {
			t.Errorf("gbench sandbox %q: status %d, stderr\n%s\nwant 1 and a line starting %q", c.args, out.code, out.stderr, c.want)
		}
	}
	out := runGbench("sandbox", "--help")
	if out.code != exitOK || !strings.Contains(out.stdout, "gbench sandbox [OPTION]... [-- GBENCH-ARGS]") || !strings.Contains(out.stdout, "--items") {
		t.Errorf("gbench sandbox --help: %d\n%s", out.code, out.stdout)
	}
	// What gbench answers without servers is answered without a sandbox.
	out = runGbench("sandbox", "--", "-c", "three")
	if out.code != exitUsage || !strings.Contains(out.stderr, `invalid value "three" for option -c/--client`) || strings.Contains(out.stderr, "sandbox:") {
		t.Errorf("gbench sandbox -- -c three: %d\n%s", out.code, out.stderr)
	}
}

// TestSandboxPlan checks what the sandbox adds to gbench's command line.
func TestSandboxPlan(t *testing.T) {
	data := workloads.Options{Items: 4096, ValueSize: 128, Keys: 500}
	const conninfo, redisURL, script1 = "host=h port=1", "redis://h:2/0", workloadDir + "mget1.sql"
	for _, c := range []struct {
		args     []string
		want     []string
		maxConns int
	}{
		// everything added: --resp and -D in front, the connection string last
		{[]string{"-f", script1, "-c", "64"},
			[]string{"--resp", redisURL, "-D", "items=4096", "-D", "keys=500", "-D", "sessions=100000", "-D", "recordcount=1000", "-f", script1, "-c", "64", conninfo}, 84},
		// what the user gave is kept: a DBNAME, --resp, a -D
		{[]string{"-D", "items=10", "--resp=redis://other", "-f", script1, "mydb"},
			[]string{"-D", "keys=500", "-D", "sessions=100000", "-D", "recordcount=1000", "-D", "items=10", "--resp=redis://other", "-f", script1, "mydb"}, 21},
		// -d is a DBNAME; "--" ends the options
		{[]string{"-d", "db", "-t", "5"}, []string{"--resp", redisURL, "-D", "items=4096", "-D", "keys=500", "-D", "sessions=100000", "-D", "recordcount=1000", "-d", "db", "-t", "5"}, 21},
		{[]string{"-t", "5", "--"}, []string{"--resp", redisURL, "-D", "items=4096", "-D", "keys=500", "-D", "sessions=100000", "-D", "recordcount=1000", "-t", "5", "--", conninfo}, 21},
		// initialization takes no benchmarking options
		{[]string{"-i", "-s", "2"}, []string{"-i", "-s", "2", conninfo}, 21},
		// no gbench arguments, nothing to run: room for the reference's 256 clients
		{nil, nil, 300},
	} {
		env := &Env{Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }, Now: time.Now}
		plan, ok := probeArgs(env, c.args)
		if !ok {
			t.Fatalf("%q: the probe failed", c.args)
		}
		if got := plan.complete(conninfo, redisURL, data); c.args != nil && !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.args, got, c.want)
		}
		if got := plan.maxConnections(); got != c.maxConns {
			t.Errorf("%q: max_connections %d, want %d", c.args, got, c.maxConns)
		}
	}
}

// TestSandboxProbeReplaysStdin: a script read from standard input by the
// probe reaches the run too.
func TestSandboxProbeReplaysStdin(t *testing.T) {
	env := &Env{Stdin: strings.NewReader("\\set x 1\n"), Getenv: func(string) string { return "" }, Now: time.Now}
	if _, ok := probeArgs(env, []string{"-f", "-"}); !ok {
		t.Fatal("the probe failed")
	}
	var b strings.Builder
	buf := make([]byte, 64)
	for {
		n, err := env.Stdin.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if b.String() != "\\set x 1\n" {
		t.Errorf("the run reads %q from standard input", b.String())
	}
}

// needSandbox skips the test when gbench sandbox could not find the server
// binaries, unless GBENCH_REQUIRE_SERVICES=1.
func needSandbox(t *testing.T, out outcome) {
	t.Helper()
	if out.code == exitUsage && strings.Contains(out.stderr, "not found (looked in") {
		testsrv.Need(t, "no server binaries for the sandbox:\n%s", out.stderr)
	}
}

var sandboxDirLine = regexp.MustCompile(`(?m)^sandbox: directory (.+)$`)

// checkRemoved checks that the sandbox directory named in stderr is gone.
func checkRemoved(t *testing.T, stderr string) {
	t.Helper()
	m := sandboxDirLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no \"sandbox: directory\" line in\n%s", stderr)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", m[1], err)
	}
}

// TestSandboxRun runs a bundled workload end to end in a sandbox.
func TestSandboxRun(t *testing.T) {
	t.Parallel()
	out := runGbench("sandbox", "--keyspace", "1000", "--", "-f", workloadDir+"mget16.sql", "-t", "10", "-c", "2")
	needSandbox(t, out)
	if out.code != exitOK {
		t.Fatalf("status %d\n%s\n%s", out.code, out.stdout, out.stderr)
	}
	for _, want := range []string{"number of transactions actually processed: 20/20", "number of failed transactions: 0 "} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("no %q in\n%s", want, out.stdout)
		}
	}
	for _, want := range []string{
		"gbench sandbox: loaded 4096 items of 128 bytes, 1000 kv keys, 100000 sessions, 1000 YCSB records in ",
		"max_connections=22", "shared_buffers=128MB",
		"gbench sandbox: running gbench --resp redis://127.0.0.1:",
		"-D items=4096 -D keys=1000 -D sessions=100000 -D recordcount=1000 -f " + workloadDir + "mget16.sql -t 10 -c 2 'host=127.0.0.1 port=",
	} {
		if !strings.Contains(out.stderr, want) {
			t.Errorf("no %q in\n%s", want, out.stderr)
		}
	}
	checkRemoved(t, out.stderr)
}

// signals is a fake Env.Signals that can interrupt every registered
// channel, as a Ctrl-C reaches all of signal.Notify's channels.
type signals struct {
	mu  sync.Mutex
	chs []chan<- os.Signal
}

func (s *signals) register(ch chan<- os.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chs = append(s.chs, ch)
}

func (s *signals) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ch := range s.chs {
		select {
		case ch <- os.Interrupt:
		default:
		}
	}
}

// TestSandboxWaits starts a sandbox without gbench arguments, uses the
// servers it prints, and stops it with an interrupt.
func TestSandboxWaits(t *testing.T) {
	t.Parallel()
	var stdout, stderr lockedBuffer
	sig := &signals{}
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: os.Getenv, Now: time.Now, Signals: sig.register}
	done := make(chan int, 1)
	go func() {
		done <- Run(env, []string{"sandbox", "--items", "200", "--keyspace", "10", "--sessions", "10"})
	}()
	var code int
	select {
	case code = <-done:
		needSandbox(t, outcome{code: code, stderr: stderr.String()})
		t.Fatalf("returned %d before an interrupt\n%s\n%s", code, stdout.String(), stderr.String())
	case <-waitFor(&stdout, "Press Ctrl-C", 90*time.Second):
	}
	conninfo, redisURL := printedValue(t, stdout.String(), "PostgreSQL:"), printedValue(t, stdout.String(), "Redis:")
	checkServers(t, conninfo, redisURL)
	sig.interrupt()
	select {
	case code = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("still running a minute after the interrupt")
	}
	if code != exitOK || !strings.Contains(stderr.String(), "gbench sandbox: interrupted; stopping the servers") {
		t.Errorf("status %d after the interrupt\n%s", code, stderr.String())
	}
	checkRemoved(t, stderr.String())
}

// waitFor returns a channel closed once b contains s, or after d.
func waitFor(b *lockedBuffer, s string, d time.Duration) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		for end := time.Now().Add(d); time.Now().Before(end) && !strings.Contains(b.String(), s); {
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return ch
}

// printedValue is the rest of the line of out that starts with label.
func printedValue(t *testing.T, out, label string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, label); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no %q line in\n%s", label, out)
	return ""
}

// checkServers checks that the printed servers hold the loaded data.
func checkServers(t *testing.T, conninfo, redisURL string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := pgsql.Open(ctx, conninfo)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	rows, err := pg.SimpleQuery(ctx, "SELECT count(*) FROM gbench.items WHERE v IS NOT NULL")
	if err != nil || string(rows[0][0]) != "200" {
		t.Errorf("items in %s: %q %v, want 200", conninfo, rows, err)
	}
	o, err := resp.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := resp.Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n := redisInt(t, c, "EXISTS", "gbench:item:1", "gbench:item:200", "gbench:item:201", "gbench:kv:10"); n != 3 {
		t.Errorf("EXISTS gbench:item:1 gbench:item:200 gbench:item:201 gbench:kv:10 = %d, want 3", n)
	}
}

// redisReply sends one command on c and returns its top-level reply,
// copied.
func redisReply(t *testing.T, c net.Conn, args ...string) resp.Value {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	defer c.SetDeadline(time.Time{})
	rc := resp.NewClient(c)
	rc.Send(args...)
	if err := rc.Flush(); err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	vals, top, err := rc.Reply()
	if err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	v := vals[top]
	v.Bytes = slices.Clone(v.Bytes)
	return v
}

// redisInt is redisReply for a command with an integer reply.
func redisInt(t *testing.T, c net.Conn, args ...string) int64 {
	t.Helper()
	v := redisReply(t, c, args...)
	if v.Kind != resp.KindInt {
		t.Fatalf("%s: a %s reply %q, want an integer", args[0], v.Kind, v.Bytes)
	}
	return v.Int
}

// claimKey marks a Redis database (9..15) as used by a run of the workload
// tests (this package's and package workloads', which use the same key).
const claimKey = "gbench:workloads-test-claim"

// claimRedis finds a database among first..last of the GBENCH_TEST_REDIS
// server that no other run of the tests claims with key, and returns its
// URL and a connection to it. When the test ends it removes the workload
// keys and the claim.
func claimRedis(t *testing.T, key string, first, last int) (string, net.Conn) {
	t.Helper()
	base := testsrv.NeedRedis(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		for db := first; db <= last; db++ {
			u := withRedisDB(t, base, db)
			o, err := resp.ParseURL(u)
			if err != nil {
				t.Fatalf("GBENCH_TEST_REDIS: %v", err)
			}
			c, err := resp.Dial(ctx, o)
			if err != nil {
				t.Fatalf("Redis (GBENCH_TEST_REDIS) answers a PING but Dial fails: %v", err)
			}
			if redisReply(t, c, "SET", key, strconv.Itoa(os.Getpid()), "NX", "PX", "300000").Kind == resp.KindNull {
				c.Close()
				continue
			}
			t.Cleanup(func() {
				if err := workloads.Drop(context.Background(), nil, c); err != nil {
					t.Error(err)
				}
				redisReply(t, c, "DEL", key)
				c.Close()
			})
			return u, c
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("every Redis database %d..%d is claimed by another run of the tests", first, last)
	return "", nil
}

// withRedisDB points a Redis URL at database db.
func withRedisDB(t *testing.T, base string, db int) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		t.Fatalf("GBENCH_TEST_REDIS %q: want a redis:// or rediss:// URL", base)
	}
	u.Path = "/" + strconv.Itoa(db)
	q := u.Query()
	q.Del("db")
	u.RawQuery = q.Encode()
	return u.String()
}

// TestWorkloadsRun runs every bundled workload through the command line,
// in the mode its header gives, against the test servers loaded with the
// dataset.
func TestWorkloadsRun(t *testing.T) {
	t.Parallel()
	cfg := needServer(t)
	conninfo := scratchDB(t, cfg, "workloads")
	redisURL, redis := claimRedis(t, claimKey, 9, 15)
	ctx := context.Background()
	pg, err := pgsql.Open(ctx, conninfo)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	data := workloads.Options{Keys: 1000}
	if err := workloads.Load(ctx, pg, redis, data); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, w workloads.Workload, clients, transactions int) {
		t.Helper()
		args := []string{"-n", "-M", w.Mode.String(), "-f", workloadDir + w.Name, "-t", strconv.Itoa(transactions),
			"-c", strconv.Itoa(clients), "--resp", redisURL}
		for _, d := range data.Defines() {
			args = append(args, "-D", d)
		}
		out := runGbench(append(args, conninfo)...)
		n := clients * transactions
		want := fmt.Sprintf("number of transactions actually processed: %d/%d\nnumber of failed transactions: 0 ", n, n)
		if out.code != exitOK || !strings.Contains(out.stdout, want) || out.stderr != "" {
			t.Errorf("%s: status %d\n%s\n%s", w.Name, out.code, out.stdout, out.stderr)
		}
	}
	// First everything that keeps PostgreSQL and Redis equal; the writers of
	// the RESP path with one client, so that their SETs come in commit order.
	var later []workloads.Workload
	for _, w := range workloads.Workloads() {
		switch {
		case w.Group == "tpcc": // TestTPCCLike: they need the TPC-C-like data
		case w.SQL && !w.RESP && (w.Group == "update" || w.Group == "write"):
			later = append(later, w)
		case w.SQL && w.RESP && (w.Group == "update" || w.Group == "write"):
			run(t, w, 1, 40) // enough for update5's 5% to write
		default:
			run(t, w, 2, 5)
		}
	}
	if err := workloads.Contract(ctx, pg, redis); err != nil {
		t.Errorf("after the workloads that write through to Redis: %v", err)
	}
	rows, err := pg.SimpleQuery(ctx, "SELECT count(*) FROM gbench.items_cache")
	if err != nil || string(rows[0][0]) == "0" {
		t.Errorf("coldfill-sql.sql filled no cache row (%v)", err)
	}
	keys := []string{"EXISTS"}
	for id := 1; id <= workloads.DefaultItems; id++ {
		keys = append(keys, "gbench:cache:"+strconv.Itoa(id))
	}
	if redisInt(t, redis, keys...) == 0 {
		t.Error("coldfill-resp.sql filled no cache key")
	}
	for _, w := range later {
		run(t, w, 2, 5)
	}
	// The user's command line: simple mode, pgbench's vacuum.
	out := runGbench("-f", workloadDir+"mget64.sql", "-c", "2", "-t", "5", conninfo)
	if out.code != exitOK || !strings.Contains(out.stdout, "processed: 10/10") {
		t.Errorf("gbench -f mget64.sql: status %d\n%s\n%s", out.code, out.stdout, out.stderr)
	}
	for _, mode := range []script.Mode{script.Simple, script.Extended} {
		run(t, workloads.Workload{Name: "any64-random.sql", Mode: mode}, 2, 5)
	}
}
