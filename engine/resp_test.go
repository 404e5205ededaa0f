package engine_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/script"
)

// respConnector dials the test Redis.
// testRedis returns the test Redis options, or skips.
func testRedis(t testing.TB) resp.Options {
	t.Helper()
	o, err := resp.ParseURL(testsrv.NeedRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// redisDo sends one command and returns the reply's text; an error reply
// fails the test.
func redisDo(t testing.TB, o resp.Options, args ...string) string {
	t.Helper()
	c, err := resp.Dial(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc := resp.NewClient(c)
	rc.SetTimeout(5 * time.Second)
	text, err := rc.Text(args...)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// runRESP runs a script with \resp commands (and SQL when pg is needed).
func runRESP(t testing.TB, text string, edit func(*engine.Config)) (*engine.Result, string) {
	t.Helper()
	o := testRedis(t)
	s, err := script.Parse("resp.sql", text, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 2, Threads: 2, Transactions: 10, MaxTries: 1,
		Seed: 1, Scale: 1, RESP: resp.Connector(o), Stderr: &stderr, PerCommand: true}
	if p.HasSQL {
		cfg.SQL = pgsql.Connector(testPG(t))
	}
	if edit != nil {
		edit(cfg)
	}
	res, err := engine.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	return res, stderr.String()
}

func TestRESPWritesAndExpandsLists(t *testing.T) {
	o := testRedis(t)
	prefix := fmt.Sprintf("gbench:test:%d:", os.Getpid())
	src := `\set k :client_id + 40
\resp SET ` + prefix + `item::k "value of :k"
\set keys range(1, 3)
\resp MSET ` + prefix + `m::keys x
\resp DEL ` + prefix + `nope
`
	res, stderr := runRESP(t, src, func(c *engine.Config) { c.Transactions = 3 })
	if res.Aborted != 0 || res.Stats.Total.Cnt != 6 {
		t.Fatalf("aborted %d processed %d\n%s", res.Aborted, res.Stats.Total.Cnt, stderr)
	}
	if got := redisDo(t, o, "GET", prefix+"item:41"); got != "value of 41" {
		t.Errorf("GET item:41 = %q", got)
	}
	// MSET m:1 m:2 m:3 x sets m:1 to "m:2" and m:3 to "x".
	if got := redisDo(t, o, "GET", prefix+"m:3"); got != "x" {
		t.Errorf("GET m:3 = %q (list expansion)", got)
	}
	redisDo(t, o, "DEL", prefix+"item:40", prefix+"item:41", prefix+"m:1", prefix+"m:3")
}

func TestRESPErrorsFailTransactions(t *testing.T) {
	o := testRedis(t)
	key := fmt.Sprintf("gbench:test:%d:list", os.Getpid())
	redisDo(t, o, "DEL", key)
	redisDo(t, o, "RPUSH", key, "a")
	res, stderr := runRESP(t, "\\resp GET "+key+"\n\\resp PING\n", nil)
	total := res.Stats.Total
	if res.Aborted != 0 || total.OtherFailures != 20 || total.Cnt != 0 {
		t.Errorf("WRONGTYPE: aborted %d, failures %d, processed %d\n%s", res.Aborted, total.OtherFailures, total.Cnt, stderr)
	}
	if n := res.Stats.Commands[0][0].Classes["WRONGTYPE"]; n != 20 {
		t.Errorf("WRONGTYPE counted %d times on the command", n)
	}
	if n := res.Stats.Commands[0][1].Latency.Count; n != 0 {
		t.Errorf("the command after a failure ran %d times", n)
	}
	redisDo(t, o, "DEL", key)
}

// TestRESPGsetCacheAside reads Redis, falls back to SQL on a miss and
// writes Redis back, the cache-aside pattern \gset after \resp exists for.
func TestRESPGsetCacheAside(t *testing.T) {
	o := testRedis(t)
	prefix := fmt.Sprintf("gbench:test:%d:ca:", os.Getpid())
	src := `\set k random(1, 5)
\resp GET ` + prefix + `:k
\gset c_
\if :c_reply IS NULL
SELECT 'value-' || :k AS v \gset
\resp SET ` + prefix + `:k :v
\endif
\resp INCR ` + prefix + `hits
\gset
\resp MGET ` + prefix + `1 ` + prefix + `2
\gset m
`
	res, stderr := runRESP(t, src, func(c *engine.Config) { c.Transactions = 20 })
	if res.Aborted != 0 || res.Stats.Total.Cnt != 40 {
		t.Fatalf("aborted %d processed %d\n%s", res.Aborted, res.Stats.Total.Cnt, stderr)
	}
	for k := 1; k <= 5; k++ {
		got := redisDo(t, o, "GET", fmt.Sprintf("%s%d", prefix, k))
		if got != "" && got != fmt.Sprint("value-", k) {
			t.Errorf("cached %d = %q", k, got)
		}
	}
	if got := redisDo(t, o, "GET", prefix+"hits"); got != "40" {
		t.Errorf("hits = %q, want 40", got)
	}
	keys := []string{prefix + "hits"}
	for k := 1; k <= 5; k++ {
		keys = append(keys, fmt.Sprintf("%s%d", prefix, k))
	}
	redisDo(t, o, append([]string{"DEL"}, keys...)...)
}

func TestRESPPipeline(t *testing.T) {
	o := testRedis(t)
	key := fmt.Sprintf("gbench:test:%d:pipe", os.Getpid())
	src := "\\startpipeline\n" + strings.Repeat("\\resp INCR "+key+"\n", 5) + "\\endpipeline\n"
	res, stderr := runRESP(t, src, nil)
	if res.Aborted != 0 || res.Stats.Total.Cnt != 20 {
		t.Fatalf("aborted %d processed %d\n%s", res.Aborted, res.Stats.Total.Cnt, stderr)
	}
	if got := redisDo(t, o, "GET", key); got != "100" {
		t.Errorf("counter = %q, want 100", got)
	}
	if n := res.Stats.Commands[0][3].Latency.Count; n != 20 {
		t.Errorf("pipelined command latency recorded %d times, want 20 (one per reply)", n)
	}
	redisDo(t, o, "DEL", key)
}

// TestRESPLostConnectionAborts kills a throwaway Redis in the middle of a
// run: clients abort with a message naming the connection, and the results
// so far are kept.
func TestRESPLostConnectionAborts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a throwaway server")
	}
	sb, err := sandbox.Start(context.Background(), sandbox.Options{Redis: true})
	if err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			testsrv.Need(t, "no server binaries for the sandbox: %v", err)
		}
		t.Fatal(err)
	}
	defer sb.Close()
	o, err := resp.ParseURL(sb.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	s, _ := script.Parse("t.sql", "\\resp INCR n\n", 1)
	p, _ := script.Compile([]*script.Script{s}, script.Simple, nil)
	var stderr syncBuffer
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 3, Threads: 2, Duration: 30 * time.Second, MaxTries: 1,
		Seed: 1, Scale: 1, RESP: resp.Connector(o), Stderr: &stderr, Tick: 500 * time.Millisecond}
	// The kill comes at the first progress tick, once the clients are
	// running whatever their connections took to open.
	var kill sync.Once
	cfg.OnProgress = func(engine.Progress) {
		kill.Do(func() {
			if p, err := os.FindProcess(sb.RedisPID()); err == nil {
				p.Kill()
			}
		})
	}
	start := time.Now()
	res, err := engine.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Clients that missed the server's death would run out the -T of 30 s:
	// ending before it, all three aborted, is the behaviour.
	if time.Since(start) >= cfg.Duration || res.Aborted != 3 || res.Stats.Total.Cnt == 0 {
		t.Errorf("after the server died: aborted %d, processed %d, took %v", res.Aborted, res.Stats.Total.Cnt, time.Since(start))
	}
	if !strings.Contains(stderr.String(), "aborted in command 0 (resp)") {
		t.Errorf("no abort message:\n%s", stderr.String())
	}
}

// TestRESPValuesReadBackWithRedisCli checks what a script wrote with the
// stock redis-cli, an independent client.
func TestRESPValuesReadBackWithRedisCli(t *testing.T) {
	cli := testsrv.NeedRedisCLI(t)
	o := testRedis(t)
	key := fmt.Sprintf("gbench:test:%d:cli", os.Getpid())
	res, stderr := runRESP(t, "\\set v :client_id * 10 + 7\n\\resp HSET "+key+" c:client_id \"v :v\"\n", nil)
	if res.Aborted != 0 {
		t.Fatalf("aborted:\n%s", stderr)
	}
	host, port, _ := net.SplitHostPort(o.Addr)
	out, err := osexec.Command(cli, "-h", host, "-p", port, "-n", fmt.Sprint(o.DB), "HGET", key, "c1").Output()
	if err != nil || strings.TrimSpace(string(out)) != "v 17" {
		t.Errorf("redis-cli HGET c1: %q %v", out, err)
	}
	redisDo(t, o, "DEL", key)
}
