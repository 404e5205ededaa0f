package report

import (
	"math"

	"github.com/gbench/gbench/engine/stats"
)

// Cache is what a cache engineer reads first, for \resp commands: the
// keyspace hits and misses of GET, GETEX, GETDEL and of each MGET element
// (a nil reply or element is a miss), the hash fields HGET and HMGET found
// and did not (a missing field, or a missing hash, not a keyspace miss),
// and the bytes of the requests and replies on the wire. Error replies
// count neither hits nor misses. A merge adds them.
type Cache struct {
	Hits          int64 `json:"hits"`
	Misses        int64 `json:"misses"`
	FieldHits     int64 `json:"field_hits"`
	FieldMisses   int64 `json:"field_misses"`
	BytesSent     int64 `json:"bytes_sent"`
	BytesReceived int64 `json:"bytes_received"`
	// Moved and Asked count a Redis Cluster's MOVED and ASK redirections
	// (each request sent again to the node named); absent outside a
	// cluster.
	Moved int64 `json:"moved,omitempty"`
	Asked int64 `json:"asked,omitempty"`
}

func newCache(c *stats.Cache) *Cache {
	return &Cache{Hits: c.Hits, Misses: c.Misses, FieldHits: c.FieldHits, FieldMisses: c.FieldMisses,
		BytesSent: c.BytesSent, BytesReceived: c.BytesRecv, Moved: c.Moved, Asked: c.Asked}
}

// addCache adds src into dst and returns it, a copy of src when dst is
// nil (so that a merge never writes into its inputs).
func addCache(dst, src *Cache) *Cache {
	if src == nil {
		return dst
	}
	if dst == nil {
		c := *src
		return &c
	}
	dst.Hits += src.Hits
	dst.Misses += src.Misses
	dst.FieldHits += src.FieldHits
	dst.FieldMisses += src.FieldMisses
	dst.BytesSent += src.BytesSent
	dst.BytesReceived += src.BytesReceived
	dst.Moved += src.Moved
	dst.Asked += src.Asked
	return dst
}

// HitRatio is hits over hits and misses, NaN when there were none.
func (c *Cache) HitRatio() float64 { return pct(c.Hits, c.Hits+c.Misses) / 100 }

// writeCache prints the \resp cache counters (--resp-stats), after
// pgbench's lines: in total, then per \resp command under -r.
func writeCache(w *writer, s *Summary) {
	cfg := s.Config
	if !s.RESPStats || !cfg.Program.HasRESP {
		return
	}
	c, txns := &s.Result.Stats.Cache, s.Result.Stats.Total.Cnt
	w.printf("resp keyspace hits = %d, misses = %d (hit ratio %s%%)\n", c.Hits, c.Misses, fmtPct(pct(c.Hits, c.Hits+c.Misses)))
	w.printf("resp hash fields found = %d, missing = %d\n", c.FieldHits, c.FieldMisses)
	w.printf("resp bytes sent = %d (%s per transaction), received = %d (%s per transaction)\n",
		c.BytesSent, cfloat(perTxn(c.BytesSent, txns), 1), c.BytesRecv, cfloat(perTxn(c.BytesRecv, txns), 1))
	if c.Moved|c.Asked != 0 {
		w.printf("resp cluster redirections: MOVED = %d, ASK = %d\n", c.Moved, c.Asked)
	}
	if s.Result.Stats.Commands == nil {
		return
	}
	w.printf("resp counters per command (hits, misses, fields found, fields missing, bytes sent, bytes received):\n")
	for i, sc := range cfg.Program.Scripts {
		for j, cmd := range sc.Commands {
			if cmd.RESP == nil {
				continue
			}
			cc := &s.Result.Stats.Commands[i][j].Cache
			w.printf("   %10d %10d %10d %10d %12d %12d  %s\n", cc.Hits, cc.Misses, cc.FieldHits, cc.FieldMisses,
				cc.BytesSent, cc.BytesRecv, cmd.FirstLine)
		}
	}
}

// perTxn is n per transaction, NaN with none.
func perTxn(n, txns int64) float64 {
	if txns == 0 {
		return math.NaN()
	}
	return float64(n) / float64(txns)
}

// cache checks a result's cache counters (nil: none).
func (v *validator) cache(field string, c *Cache) {
	if c == nil {
		return
	}
	for _, f := range []struct {
		name string
		n    int64
	}{{"hits", c.Hits}, {"misses", c.Misses}, {"field_hits", c.FieldHits}, {"field_misses", c.FieldMisses},
		{"bytes_sent", c.BytesSent}, {"bytes_received", c.BytesReceived},
		{"moved", c.Moved}, {"asked", c.Asked}} {
		v.count(field+"."+f.name, f.n)
	}
}
