package report

import (
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
}

func newCache(c *stats.Cache) *Cache {
	return &Cache{Hits: c.Hits, Misses: c.Misses, FieldHits: c.FieldHits, FieldMisses: c.FieldMisses,
		BytesSent: c.BytesSent, BytesReceived: c.BytesRecv}
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
	return dst
}

// HitRatio is hits over hits and misses, NaN when there were none.
func (c *Cache) HitRatio() float64 { return pct(c.Hits, c.Hits+c.Misses) / 100 }
