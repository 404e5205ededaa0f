package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
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
	res := readJSON(t, jsonFile)
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

// respLines are the summary's --resp-stats lines: from the hits line,
// the lines of resp counters and those per command under them.
func respLines(summary string) []string {
	var out []string
	for line := range strings.Lines(summary) {
		if strings.HasPrefix(line, "resp keyspace hits = ") || len(out) > 0 && (strings.HasPrefix(line, "resp ") || strings.HasPrefix(line, "   ")) {
			out = append(out, line)
		} else if len(out) > 0 {
			break
		}
	}
	return out
}

// TestMergeRESPStats runs a script of fixed \resp reads as two workers
// with --resp-stats -r, and in one process: the merged JSON's counters are
// the workers' sums, the single run's exactly (every figure is fixed by
// the script), and gbench merge prints the single run's --resp-stats
// lines, in total and per command.
func TestMergeRESPStats(t *testing.T) {
	r := testsrv.StartRedis(t)
	for _, cmd := range [][]string{{"SET", "k:1", "one"}, {"SET", "k:2", "two!"}, {"HSET", "h", "f", "1"}} {
		if _, err := r.Do(cmd...); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "reads.sql")
	os.WriteFile(script, []byte("\\resp MGET k:1 k:2 k:nope\n\\resp HMGET h f g\n"), 0o600)
	args := []string{"-f", script, "--resp", r.URL(), "-c", "4", "-j", "2", "-t", "5", "-r", "--resp-stats"}
	start := time.Now().Truncate(time.Millisecond).Format(time.RFC3339Nano) // late, and said so: no matter
	var files []string
	for k := range 2 {
		f := filepath.Join(dir, "w"+strconv.Itoa(k)+".json")
		o := runGbench(append(args, "--worker", strconv.Itoa(k)+"/2", "--start-at", start, "--json", f)...)
		if o.code != exitOK {
			t.Fatalf("worker %d: status %d\n%s%s", k, o.code, o.stdout, o.stderr)
		}
		files = append(files, f)
	}
	single := runGbench(append(args, "--json", filepath.Join(dir, "one.json"))...)
	if single.code != exitOK {
		t.Fatalf("one run: status %d\n%s", single.code, single.stderr)
	}
	m := runGbench(append([]string{"merge", "-o", filepath.Join(dir, "m.json")}, files...)...)
	if m.code != exitOK {
		t.Fatalf("merge: status %d\n%s", m.code, m.stderr)
	}
	w0, w1 := readJSON(t, files[0]), readJSON(t, files[1])
	one, merged := readJSON(t, filepath.Join(dir, "one.json")), readJSON(t, filepath.Join(dir, "m.json"))
	if one.Cache == nil || w0.Cache == nil || w1.Cache == nil || merged.Cache == nil || !merged.Config.RESPStats {
		t.Fatalf("cache counters: one run %+v, workers %+v %+v, merge %+v (resp_stats %v)", one.Cache, w0.Cache, w1.Cache, merged.Cache, merged.Config.RESPStats)
	}
	sum := *w0.Cache
	for _, f := range []struct {
		to   *int64
		from int64
	}{{&sum.Hits, w1.Cache.Hits}, {&sum.Misses, w1.Cache.Misses}, {&sum.FieldHits, w1.Cache.FieldHits},
		{&sum.FieldMisses, w1.Cache.FieldMisses}, {&sum.BytesSent, w1.Cache.BytesSent}, {&sum.BytesReceived, w1.Cache.BytesReceived}} {
		*f.to += f.from
	}
	if *merged.Cache != sum || *merged.Cache != *one.Cache || one.Cache.Hits != 2*20 || one.Cache.Misses != 20 || one.Cache.FieldHits != 20 {
		t.Errorf("merged %+v, the workers' sum %+v, one run %+v (want 40 hits, 20 misses, 20 fields found)", *merged.Cache, sum, *one.Cache)
	}
	for j := range 2 {
		mc, oc := merged.Scripts[0].Commands[j].Stats.Cache, one.Scripts[0].Commands[j].Stats.Cache
		if mc == nil || oc == nil || *mc != *oc {
			t.Errorf("command %d: merged %+v, one run %+v", j, mc, oc)
		}
	}
	want, got := respLines(single.stdout), respLines(m.stdout)
	if len(want) != 6 || !slices.Equal(got, want) {
		t.Errorf("gbench merge's resp lines\n%s\none run's\n%s", strings.Join(got, ""), strings.Join(want, ""))
	}
}

// TestMergeRESPStatsOption: workers run without --resp-stats still record
// their counters; gbench merge prints them under its own --resp-stats,
// and not without it.
func TestMergeRESPStatsOption(t *testing.T) {
	r := testsrv.StartRedis(t)
	if _, err := r.Do("SET", "k:1", "one"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "reads.sql")
	os.WriteFile(script, []byte("\\resp MGET k:1 k:2\n"), 0o600)
	start := time.Now().Truncate(time.Millisecond).Format(time.RFC3339Nano)
	var files []string
	for k := range 2 {
		f := filepath.Join(dir, "w"+strconv.Itoa(k)+".json")
		o := runGbench("-f", script, "--resp", r.URL(), "-c", "2", "-j", "2", "-t", "3", "--worker", strconv.Itoa(k)+"/2", "--start-at", start, "--json", f)
		if o.code != exitOK || strings.Contains(o.stdout, "resp keyspace") {
			t.Fatalf("worker %d: status %d\n%s%s", k, o.code, o.stdout, o.stderr)
		}
		files = append(files, f)
	}
	for _, on := range []bool{false, true} {
		args := append([]string{"merge", "-o", filepath.Join(dir, "m.json")}, files...)
		if on {
			args = append(args, "--resp-stats")
		}
		m := runGbench(args...)
		if m.code != exitOK {
			t.Fatalf("merge: status %d\n%s", m.code, m.stderr)
		}
		const want = "resp keyspace hits = 6, misses = 6 (hit ratio 50.000%)\n"
		if strings.Contains(m.stdout, want) != on || readJSON(t, filepath.Join(dir, "m.json")).Config.RESPStats != on {
			t.Errorf("merge --resp-stats=%v: %q printed %v:\n%s", on, want, !on, m.stdout)
		}
	}
}
