package resp

import (
	"bytes"

	"github.com/gbench/gbench/engine/driver"
)

// readKind says how a command's reply counts in driver.Cache.
type readKind uint8

const (
	readOther  readKind = iota
	readKey             // GET, GETEX, GETDEL: a nil reply is a keyspace miss
	readKeys            // MGET: each nil element is a keyspace miss
	readField           // HGET: a nil reply is a missing field (or hash)
	readFields          // HMGET: each nil element is a missing field
)

// classify returns the readKind of a command name, in any case, without
// allocating.
func classify(name []byte) readKind {
	switch len(name) {
	case 3:
		if bytes.EqualFold(name, []byte("GET")) {
			return readKey
		}
	case 4:
		if bytes.EqualFold(name, []byte("MGET")) {
			return readKeys
		}
		if bytes.EqualFold(name, []byte("HGET")) {
			return readField
		}
	case 5:
		if bytes.EqualFold(name, []byte("GETEX")) {
			return readKey
		}
		if bytes.EqualFold(name, []byte("HMGET")) {
			return readFields
		}
	case 6:
		if bytes.EqualFold(name, []byte("GETDEL")) {
			return readKey
		}
	}
	return readOther
}

// countReply fills c from the reply at top for a command of kind k. An
// error reply counts neither hits nor misses.
func (s *Session) countReply(c *driver.Cache, k readKind, vals []Value, top int) {
	v := &vals[top]
	if k == readOther || v.IsError() {
		return
	}
	hits, misses := &c.Hits, &c.Misses
	if k == readField || k == readFields {
		hits, misses = &c.FieldHits, &c.FieldMisses
	}
	if k == readKey || k == readField {
		if v.Kind == KindNull {
			*misses = 1
		} else {
			*hits = 1
		}
		return
	}
	if v.Kind != KindArray {
		return
	}
	for i := s.r.First(top); i >= 0; i = s.r.Next(i) {
		if vals[i].Kind == KindNull {
			*misses++
		} else {
			*hits++
		}
	}
}
