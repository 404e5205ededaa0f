package stats

// Cache counts what a cache engineer reads first, for \resp commands:
// keyspace hits and misses of GET-like reads (GET, GETEX, GETDEL, each
// element of MGET), hits and misses of hash fields (HGET, HMGET), and the
// bytes of requests and replies on the wire. Sums merge exactly.
type Cache struct {
	Hits, Misses           int64
	FieldHits, FieldMisses int64
	BytesSent, BytesRecv   int64
	// Moved and Asked count a cluster's MOVED and ASK redirections, each
	// followed by the request sent again to the node named.
	Moved, Asked int64
}

// Add adds o into c.
func (c *Cache) Add(o *Cache) {
	c.Hits += o.Hits
	c.Misses += o.Misses
	c.FieldHits += o.FieldHits
	c.FieldMisses += o.FieldMisses
	c.BytesSent += o.BytesSent
	c.BytesRecv += o.BytesRecv
	c.Moved += o.Moved
	c.Asked += o.Asked
}

// Zero reports whether nothing was counted.
func (c *Cache) Zero() bool { return *c == Cache{} }

// AddCache counts one reply's cache figures in b's total and, with
// per-command statistics on, in its command's.
func (b *Block) AddCache(script, cmd int, c *Cache) {
	b.Cache.Add(c)
	if b.Commands != nil {
		b.Commands[script][cmd].Cache.Add(c)
	}
}
