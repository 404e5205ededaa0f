package matrix

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/sandbox"
)

// respCountersPlan reads 1 and 16 keys a request with MGET, a fixed
// number of requests per sample, no warm-up.
const respCountersPlan = `keys = [1, 16]
connections = [2]
requests = 500
repeats = 2
warmup_s = 0
threads = 1

[[paths]]
name = "resp-mget"
script = '\resp MGET gbench:item::keys'
contract = "array"
`

// Slack allowed between a sample's INFO stats byte deltas and the bytes
// gbench counted on its connections: within the sample's window the
// probe reads INFO stats twice (the first reply and the second command
// fall inside), INFO cpu at each progress tick and INFO memory once, and
// the sample's connections say HELLO or SELECT before the clock starts.
// Measured: 53 bytes in, 1.35 KiB out (a 500-request sample has two
// or three ticks).
const (
	sampleInputSlack  = 512
	sampleOutputSlack = 4 << 10
)

// TestMatrixRESPCountersAgreeWithServer runs MGET samples on a Redis no
// one else uses: each sample's hits are exactly its keys × requests, with
// no miss, and agree with the server's keyspace_hits over the sample; its
// bytes sent and received are the server's total_net_input_bytes and
// total_net_output_bytes over the sample, less the probes' traffic.
func TestMatrixRESPCountersAgreeWithServer(t *testing.T) {
	r := testsrv.StartRedis(t)
	ro, err := resp.ParseURL(r.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := planConfig(t, respCountersPlan)
	c.RESP, c.Load = &ro, true
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Samples) != 4 || res.FailedSamples != 0 {
		t.Fatalf("%d samples, %d failed", len(res.Samples), res.FailedSamples)
	}
	for _, s := range res.Samples {
		checkSample(t, &s, "redis")
		rc, srv := s.RESP, s.Server
		if rc == nil || srv == nil || srv.Counters == nil {
			t.Errorf("%s/%d: counters %+v, server %+v", s.Path, s.Keys, rc, srv)
			continue
		}
		n, k := s.Requests+s.Failures, int64(s.Keys)
		if s.Requests != 500 || rc.Hits != k*500 || rc.Misses != 0 || rc.FieldHits|rc.FieldMisses != 0 || rc.HitsPerReq != float64(k) {
			t.Errorf("%s/%d: %d requests, counters %+v: want %d hits, none missed", s.Path, s.Keys, s.Requests, *rc, k*500)
		}
		if h, m := srv.Counters["keyspace_hits"], srv.Counters["keyspace_misses"]; h != rc.Hits || m != 0 {
			t.Errorf("%s/%d: the client counted %d hits; Redis %d hits, %d misses", s.Path, s.Keys, rc.Hits, h, m)
		}
		if rc.BytesSentPerReq != float64(rc.BytesSent)/float64(n) || rc.BytesReceivedPerReq != float64(rc.BytesReceived)/float64(n) {
			t.Errorf("%s/%d: per request %+v", s.Path, s.Keys, *rc)
		}
		// An MGET of k keys returns k values of the dataset's size.
		if rc.BytesReceived < k*500*int64(res.Plan.ValueSize) {
			t.Errorf("%s/%d: %d bytes received, less than %d values of %d bytes", s.Path, s.Keys, rc.BytesReceived, k*500, res.Plan.ValueSize)
		}
		in := srv.Counters["total_net_input_bytes"] - rc.BytesSent
		out := srv.Counters["total_net_output_bytes"] - rc.BytesReceived
		t.Logf("%s/%d: sent %d received %d; the server's input exceeds it by %d, output by %d", s.Path, s.Keys, rc.BytesSent, rc.BytesReceived, in, out)
		if in < 0 || in > sampleInputSlack {
			t.Errorf("%s/%d: server input bytes exceed gbench's sent bytes by %d, want 0 to %d", s.Path, s.Keys, in, sampleInputSlack)
		}
		if out < 0 || out > sampleOutputSlack {
			t.Errorf("%s/%d: server output bytes exceed gbench's received bytes by %d, want 0 to %d", s.Path, s.Keys, out, sampleOutputSlack)
		}
	}
}

// asidePlan's path reads its keys from Redis and then from PostgreSQL,
// as a cache-aside read that always misses would.
const asidePlan = `keys = [4]
connections = [2]
requests = 300
repeats = 1
warmup_s = 0
threads = 1

[[paths]]
name = "aside"
script = '''
\resp MGET gbench:item::keys
SELECT id, v FROM gbench.items WHERE id = ANY(:keys);
'''
contract = "array"
`

// TestMatrixRESPCountersOfAMixedPath runs a path of a \resp command and
// an SQL read on throwaway servers: the sample's reads count both (the
// SQL result a hit too), its \resp counters the MGET's keys alone.
func TestMatrixRESPCountersOfAMixedPath(t *testing.T) {
	sb := startSandbox(t, sandbox.Options{Postgres: true, Redis: true})
	pg, err := pgsql.ParseConfig(sb.PostgresConnString())
	if err != nil {
		t.Fatal(err)
	}
	ro, err := resp.ParseURL(sb.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	c := planConfig(t, asidePlan)
	c.PG, c.RESP, c.Load, c.Sandbox = pg, &ro, true, true
	// The conninfo has no application_name: the run gives its connections
	// one, without which the contract check's wait for its connections to
	// leave waited for the server's own processes (application_name '')
	// until the timeout.
	var log lockedBuffer
	c.Progress = &log
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "still open") {
		t.Errorf("the run waited for connections to leave:\n%s", log.String())
	}
	if len(res.Samples) != 1 || res.FailedSamples != 0 {
		t.Fatalf("%d samples, %d failed: %+v", len(res.Samples), res.FailedSamples, res.Samples)
	}
	s := res.Samples[0]
	if s.Requests != 300 || s.RESP == nil || s.Reads == nil {
		t.Fatalf("%d requests, resp %+v, reads %+v", s.Requests, s.RESP, s.Reads)
	}
	if rc := s.RESP; rc.Hits != 4*300 || rc.Misses != 0 || rc.HitsPerReq != 4 || rc.BytesSent <= 0 || rc.BytesReceived < 4*300*int64(res.Plan.ValueSize) {
		t.Errorf("resp counters %+v, want 1200 hits of the MGET alone", *rc)
	}
	if r := s.Reads; r.Hits != 4*300+300 || r.Misses != 0 {
		t.Errorf("reads %+v, want the MGET's 1200 keys and 300 SELECTs", *r)
	}
}

// lockedBuffer is a progress log that the run's goroutines may write at
// once.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
