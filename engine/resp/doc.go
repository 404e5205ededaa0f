// Package resp speaks the Redis serialization protocol (RESP2, and RESP3
// where the server uses it) for gbench's \resp meta-command: an incremental,
// allocation-free codec, connection URLs, and connection setup.
//
// # Writing commands
//
// A command is an array of bulk strings appended to a reusable buffer:
//
//	b = resp.AppendArrayHeader(b[:0], 3)
//	b = resp.AppendBulkString(b, "SET")
//	b = resp.AppendBulk(b, key)
//	b = resp.AppendBulkInt(b, 42)
//
// # Reading replies
//
// A Reader parses one whole reply at the start of a byte slice and says how
// many bytes it took, or that the reply is not complete yet (0 bytes and a
// nil error), in which case nothing is consumed and the caller reads more
// and calls Parse again with the longer slice. Reader.Need tells how long
// the slice must be at least, so that a large bulk string costs one buffer
// growth. Malformed input and input beyond the limits (MaxBulkLen,
// MaxAggregateLen, MaxDepth, MaxLineLen) give a *ProtocolError.
//
// Every value of a reply is decoded and recorded as a Value in a flat slice
// owned by the Reader, in depth-first order, with its depth, the index of its
// parent and the index past its subtree. Bytes of a Value point into the
// parsed buffer: they are valid until the buffer is modified or Parse is
// called again. Typical uses:
//
//	n, err := r.Parse(buf)            // or r.ParseDepth(buf, 0) to keep only the top value
//	if err != nil { ... }             // protocol error: close the connection
//	if n == 0 { ... }                 // read more, then parse buf again
//	vals := r.Values()
//	top := &vals[r.Top()]
//	if top.IsError() {
//		class := resp.ErrorClass(top.Bytes) // "ERR", "WRONGTYPE", "MOVED", ...
//	}
//	for i := r.First(r.Top()); i >= 0; i = r.Next(i) {
//		elem := &vals[i] // KindBulk, KindInt, KindNull, ...
//	}
//	buf = buf[n:]
//
// On a RESP3 connection a reply of KindPush is out-of-band data (such as a
// client-side caching invalidation), not the answer to a command: the answer
// still follows.
//
// # Connecting
//
// ParseURL turns redis://, rediss://, unix:// URLs and socket paths into
// Options; Options.Redacted prints them without the password. Dial connects,
// authenticates and selects the database, and returns a plain net.Conn that
// the engine then drives itself.
package resp
