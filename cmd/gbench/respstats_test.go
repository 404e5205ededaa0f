package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/output/report"
)

// infoStats reads the counters of INFO stats that the cache counters
// must agree with.
func infoStats(t *testing.T, r *testsrv.Redis) map[string]int64 {
	t.Helper()
	info, err := r.Do("INFO", "stats")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int64{}
	for line := range strings.Lines(info) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch k {
		case "keyspace_hits", "keyspace_misses", "total_net_input_bytes", "total_net_output_bytes":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			m[k] = n
		}
	}
	return m
}

func delta(a, b map[string]int64, k string) int64 { return b[k] - a[k] }

// Slack allowed between the server's byte counters and gbench's, beyond
// the test's own INFO calls (measured): gbench's context probes, on
// connections of their own, send INFO server, a few CONFIG GET and INFO
// stats persistence twice (well under 1 KiB of commands) and read their
// replies (a few KiB each). Measured: 586 bytes in, 5132 out.
const (
	probeInputSlack  = 1 << 10
	probeOutputSlack = 12 << 10
)

// TestRESPStatsAgreeWithServer runs GET, MGET and HMGET on a Redis no one
// else uses: gbench's hits and misses agree exactly with the server's
// keyspace_hits and keyspace_misses (an HMGET of an existing hash is one
// keyspace hit, its nil elements missing fields), and its bytes with
// total_net_input_bytes and total_net_output_bytes within the probes'.
func TestRESPStatsAgreeWithServer(t *testing.T) {
	r := testsrv.StartRedis(t)
	for i := 1; i <= 50; i++ {
		if _, err := r.Do("SET", "k:"+strconv.Itoa(i), strings.Repeat("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Do("HSET", "h", "f", "1"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "cache.sql")
	os.WriteFile(script, []byte("\\set k random(1, 100)\n\\resp GET k::k\n\\resp MGET k::k k:7 k:200\n\\resp HMGET h f g\n"), 0o600)
	jsonFile := filepath.Join(dir, "r.json")

	// The test's own INFO calls: the first one's reply and the second
	// one's command fall between two snapshots.
	s0 := infoStats(t, r)
	s1 := infoStats(t, r)
	selfIn, selfOut := delta(s0, s1, "total_net_input_bytes"), delta(s0, s1, "total_net_output_bytes")

	const txns = 1000
	out := runGbench("-f", script, "--resp", r.URL(), "-c", "2", "-t", strconv.Itoa(txns/2), "-r",
		"--resp-stats", "--json", jsonFile)
	if out.code != 0 {
		t.Fatalf("exit %d\n%s%s", out.code, out.stdout, out.stderr)
	}
	s2 := infoStats(t, r)
	f, err := os.Open(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := report.ReadResult(f)
	if err != nil {
		t.Fatal(err)
	}
	c := res.Cache
	if c == nil {
		t.Fatal("no cache counters in the JSON")
	}
	t.Logf("gbench %+v; server hits %d misses %d in %d out %d (the test's own INFO: in %d out %d)", *c,
		delta(s1, s2, "keyspace_hits"), delta(s1, s2, "keyspace_misses"),
		delta(s1, s2, "total_net_input_bytes"), delta(s1, s2, "total_net_output_bytes"), selfIn, selfOut)
	if got, want := c.Hits+txns, delta(s1, s2, "keyspace_hits"); got != want {
		t.Errorf("hits %d + %d HMGET = %d, server keyspace_hits %d", c.Hits, txns, got, want)
	}
	if got, want := c.Misses, delta(s1, s2, "keyspace_misses"); got != want {
		t.Errorf("misses %d, server keyspace_misses %d", got, want)
	}
	if c.FieldHits != txns || c.FieldMisses != txns {
		t.Errorf("fields found %d, missing %d, want %d each", c.FieldHits, c.FieldMisses, txns)
	}
	// GET: hits and misses make txns, MGET three times that.
	if c.Hits+c.Misses != 4*txns {
		t.Errorf("hits %d + misses %d, want %d reads", c.Hits, c.Misses, 4*txns)
	}
	in := delta(s1, s2, "total_net_input_bytes") - selfIn - c.BytesSent
	outB := delta(s1, s2, "total_net_output_bytes") - selfOut - c.BytesReceived
	if in < 0 || in > probeInputSlack {
		t.Errorf("server input bytes exceed gbench's sent bytes by %d, want 0 to %d", in, probeInputSlack)
	}
	if outB < 0 || outB > probeOutputSlack {
		t.Errorf("server output bytes exceed gbench's received bytes by %d, want 0 to %d", outB, probeOutputSlack)
	}
	if !strings.Contains(out.stdout, "resp keyspace hits = "+strconv.FormatInt(c.Hits, 10)) {
		t.Errorf("summary lacks the hits line:\n%s", out.stdout)
	}
}
