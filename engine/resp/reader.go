package resp

// Reader decodes RESP replies from byte slices. It keeps no input between
// calls: the caller holds received bytes in its own buffer and calls Parse
// whenever more have arrived, until a whole reply is there.
//
// A Reader reuses its memory, so parsing allocates nothing once Values has
// grown to the largest reply seen. The zero value is ready to use. A Reader
// must not be used from several goroutines at once.
type Reader struct {
	vals    []Value
	scratch Value   // the value being decoded when it is not recorded
	stack   []frame // the open aggregates; grown to the deepest reply seen (a Session per connection keeps it small)
	need    int
}

// frame is an aggregate whose children are being read.
type frame struct {
	idx  int32 // index in vals, or -1 when the aggregate is not recorded
	attr bool  // an attribute: it is not an element of its parent
	left int64 // child values still to read
}

// Parse decodes one complete reply at the start of buf and records every
// value in it (see Values). It returns the number of bytes the reply takes.
//
// When buf holds only part of a reply, Parse returns 0 and a nil error and
// consumes nothing: call it again with the same bytes plus more. Need says
// how many bytes are worth waiting for. Malformed input returns a
// *ProtocolError. Parse never panics and never retains buf beyond what
// Values refers to.
//
// Leading attributes are part of the reply and are recorded as values of
// KindAttribute; Top skips them.
func (r *Reader) Parse(buf []byte) (int, error) {
	return r.parse(buf, MaxDepth)
}

// ParseDepth is Parse, but it records only the values at most depth levels
// deep: 0 keeps just the top-level value, 1 also the elements of a
// top-level aggregate. Deeper values are still decoded and checked in full.
// A negative depth counts as 0.
func (r *Reader) ParseDepth(buf []byte, depth int) (int, error) {
	return r.parse(buf, max(depth, 0))
}

// Values returns the values recorded by the last successful Parse in
// depth-first order, the reply (or its first attribute) at index 0. The
// slice and the Bytes in it stay valid until the next Parse on r and as long
// as the parsed buffer is not modified. After an incomplete or failed Parse
// it is empty.
func (r *Reader) Values() []Value {
	return r.vals
}

// Need returns, after Parse reported an incomplete reply, a lower bound on
// the length of the reply: at least one byte more than was given, the whole
// of a bulk string whose header has arrived, and 3 bytes (the shortest
// value) for each element the open aggregates still announce. Parsing again
// before buf holds Need bytes only repeats work: waiting for them lets a
// large reply that arrives in many reads be parsed fewer times, and lets the
// caller grow its buffer once. The lengths come from the peer: a caller that
// does not trust it should cap the buffer it grows (a hostile reply may
// announce gigabytes).
// Need returns 0 after a complete or failed Parse.
func (r *Reader) Need() int {
	return r.need
}

// Top returns the index in Values of the reply proper, skipping leading
// attributes, or -1 when nothing has been parsed.
func (r *Reader) Top() int {
	return r.skipAttrs(0, -1)
}

// First returns the index in Values of the first child of the aggregate at
// index i, skipping attributes, or -1 when it has none or its children were
// not recorded.
func (r *Reader) First(i int) int {
	if i < 0 {
		return -1
	}
	return r.skipAttrs(i+1, int32(i))
}

// Next returns the index in Values of the sibling after the value at index
// i, skipping attributes, or -1 when i is the last one.
//
// The elements of the reply are visited by:
//
//	for i := r.First(r.Top()); i >= 0; i = r.Next(i) { ... }
func (r *Reader) Next(i int) int {
	if i < 0 {
		return -1
	}
	return r.skipAttrs(int(r.vals[i].End), r.vals[i].Parent)
}

func (r *Reader) skipAttrs(j int, parent int32) int {
	for j < len(r.vals) && r.vals[j].Parent == parent {
		if r.vals[j].Kind != KindAttribute {
			return j
		}
		j = int(r.vals[j].End)
	}
	return -1
}

func (r *Reader) parse(buf []byte, keep int) (int, error) {
	r.vals, r.need = r.vals[:0], 0
	sp, pos := 0, 0
	for {
		v, idx := r.slot(sp, keep)
		next, n, err := r.readValue(buf, pos, v)
		if err != nil {
			return 0, r.fail(buf, sp, err)
		}
		pos = next
		attr := v.Kind == KindAttribute
		if n > 0 {
			if sp == MaxDepth {
				return 0, r.fail(buf, sp, protoErr(pos, "aggregates nested deeper than %d", MaxDepth))
			}
			if sp == len(r.stack) {
				r.stack = append(r.stack, frame{})
			}
			r.stack[sp] = frame{idx: idx, attr: attr, left: n}
			sp++
			continue
		}
		var done bool
		if sp, done = r.finish(sp, attr); done {
			return pos, nil
		}
	}
}

// slot returns the zeroed Value to decode the next value into and its index
// in r.vals: a new element of r.vals when the value is at most keep levels
// deep, else a scratch value and -1. Decoding in place, rather than into a
// local copied afterwards, avoids a store-forwarding stall (narrow field
// stores read back by a wide copy) that showed up in profiles.
func (r *Reader) slot(sp, keep int) (*Value, int32) {
	if sp > keep {
		r.scratch = Value{}
		return &r.scratch, -1
	}
	idx := int32(len(r.vals))
	if len(r.vals) < cap(r.vals) {
		r.vals = r.vals[:idx+1]
	} else {
		r.vals = append(r.vals, Value{})
	}
	parent := int32(-1)
	if sp > 0 {
		parent = r.stack[sp-1].idx
	}
	v := &r.vals[idx]
	*v = Value{Depth: int32(sp), Parent: parent, End: idx + 1}
	return v, idx
}

// finish accounts for a value that has just been read completely, closing
// every aggregate it completes. It returns the new stack depth and whether
// the whole reply is complete.
func (r *Reader) finish(sp int, attr bool) (int, bool) {
	for {
		if attr {
			// An attribute annotates the value after it and is not one
			// of its parent's elements: that value is still to come.
			return sp, false
		}
		if sp == 0 {
			return 0, true
		}
		f := &r.stack[sp-1]
		if f.left--; f.left > 0 {
			return sp, false
		}
		if f.idx >= 0 {
			r.vals[f.idx].End = int32(len(r.vals))
		}
		attr = f.attr
		sp--
	}
}

// fail resets the values after an incomplete or bad reply and turns
// errIncomplete into the nil error Parse reports.
func (r *Reader) fail(buf []byte, sp int, err error) error {
	r.vals = r.vals[:0]
	if err != errIncomplete {
		r.need = 0
		return err
	}
	r.need = max(r.need, len(buf)+1) + minValueLen*r.pending(sp)
	return nil
}

// minValueLen is the length of the shortest values, such as "_\r\n" and
// "+\r\n".
const minValueLen = 3

// pending counts the values that must still follow the one being read, in
// the sp open aggregates.
func (r *Reader) pending(sp int) int {
	n := int64(0)
	for _, f := range r.stack[:sp] {
		n += f.left - 1
	}
	return int(n)
}
