package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
)

// TestCollectCache: the \resp cache counters, in total and for the \resp
// command under -r, summed over ticks.
func TestCollectCache(t *testing.T) {
	run, block := fakeRun(t)
	e := New(run)
	block.AddCache(1, 0, &stats.Cache{Hits: 3, Misses: 1, FieldMisses: 2, BytesSent: 100, BytesRecv: 40})
	e.Update(engine.Progress{Block: block, Wall: time.Unix(100, 0), Elapsed: time.Second})
	next := stats.NewBlock([]int{2, 1}, true)
	next.AddCache(1, 0, &stats.Cache{Hits: 1, FieldHits: 5, BytesSent: 10, BytesRecv: 4})
	e.Update(engine.Progress{Block: next, Wall: time.Unix(101, 0), Elapsed: 2 * time.Second})
	want := `
# HELP gbench_resp_keyspace_total Keyspace reads of GET, GETEX, GETDEL and MGET elements by result: hit, or miss (a nil reply or element).
# TYPE gbench_resp_keyspace_total counter
gbench_resp_keyspace_total{result="hit"} 4
gbench_resp_keyspace_total{result="miss"} 1
# HELP gbench_resp_fields_total Hash fields HGET and HMGET read, by result: hit, or miss (a nil reply or element: a missing field or hash).
# TYPE gbench_resp_fields_total counter
gbench_resp_fields_total{result="hit"} 5
gbench_resp_fields_total{result="miss"} 2
# HELP gbench_resp_bytes_total Bytes of \\resp requests (sent) and replies (received) on the wire.
# TYPE gbench_resp_bytes_total counter
gbench_resp_bytes_total{direction="received"} 44
gbench_resp_bytes_total{direction="sent"} 110
# HELP gbench_command_resp_bytes_total A \\resp command's bytes by direction (-r).
# TYPE gbench_command_resp_bytes_total counter
gbench_command_resp_bytes_total{command="1",direction="received",kind="resp",line="1",script="b.sql"} 44
gbench_command_resp_bytes_total{command="1",direction="sent",kind="resp",line="1",script="b.sql"} 110
`
	err := testutil.CollectAndCompare((*collector)(e), strings.NewReader(want),
		"gbench_resp_keyspace_total", "gbench_resp_fields_total", "gbench_resp_bytes_total", "gbench_command_resp_bytes_total")
	if err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount((*collector)(e), "gbench_command_resp_keyspace_total"); n != 2 {
		t.Errorf("%d command keyspace series, want 2 (hit, miss of the one \\resp command)", n)
	}
}
