package resp

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// This file splits by slot (split=slot) a multi-key command whose keys
// span slots: Route finds one part per slot, in the order of each slot's
// first key, and the engine encodes each part on its node's Session and
// sends them all before waiting; each part's reply is copied into a merge
// until the last one, which answers the command with the replies merged in
// the order of the keys. Redis Cluster refuses keys of two slots in one
// command even on a node that serves both (CROSSSLOT), so a part holds
// the keys of one slot, as memtier's --cluster-mode splits; parts for the
// same node share its connection and go in one write.

// mergeKind says how the parts' replies make the command's reply.
type mergeKind uint8

const (
	mergeNone  mergeKind = iota // not splittable: refused as cross-slot
	mergeArray                  // MGET: the parts' elements, in the keys' order
	mergeSum                    // EXISTS, DEL, TOUCH, UNLINK: the parts' integers added
	mergeOK                     // MSET: OK once every part said OK
)

// splitKind returns how a command name's parts merge, in any case.
// MSETNX is not split: its all-or-nothing answer cannot be made of parts.
func splitKind(name []byte) mergeKind {
	switch {
	case bytes.EqualFold(name, []byte("MGET")):
		return mergeArray
	case bytes.EqualFold(name, []byte("EXISTS")), bytes.EqualFold(name, []byte("DEL")),
		bytes.EqualFold(name, []byte("TOUCH")), bytes.EqualFold(name, []byte("UNLINK")):
		return mergeSum
	case bytes.EqualFold(name, []byte("MSET")):
		return mergeOK
	}
	return mergeNone
}

// splitPart is one slot's part of a split command.
type splitPart struct {
	node     int
	slot     uint16
	from, to int // its keys' argument indexes: splitState.keyArg[from:to]
}

// splitState is a router's split of the command Route split last, and
// the merges of the split commands whose replies are awaited (several in a
// pipeline). Everything is reused from command to command.
type splitState struct {
	parts  []splitPart
	nodes  []int // each part's node, for Parts
	keyArg []int // argument index of each key, parts in order
	partOf []int // scratch: the part of each key, in the command's order
	next   int   // the part the next Encode sends
	active bool  // Encode sends parts of the command split
	step   int   // arguments per key: 1, or 2 for MSET's key value
	kind   mergeKind
	merge  int // the merge of the command split
	merges []merge
}

// merge collects the replies of one split command's parts.
type merge struct {
	busy  bool
	kind  mergeKind
	left  int     // parts not answered yet
	pos   []int32 // for MGET: the element each key of each part fills, parts in order
	start []int32 // part p's keys are pos[start[p]:start[p+1]]
	elems []elem  // MGET's merged elements
	buf   []byte  // their text
	sum   int64
	cache driver.Cache
	err   []byte // the first error reply of a part, or what was wrong
	fail  bool
}

// elem is one merged element: a copy of a part's reply element.
type elem struct {
	kind     Kind
	i        int64
	f        float64
	from, to int32 // text in merge.buf
}

// Parts returns the nodes of the parts of the command Route split: see
// driver.Splitter.
func (rt *router) Parts() []int { return rt.sp.nodes }

// splitRoute splits the command in rt.argv (keys at rt.keys) when split
// is on, its keys span slots and its kind is splittable. It reports
// whether it did; an error (a slot no node serves) aborts the client.
func (rt *router) splitRoute(cmd *script.Command) (bool, error) {
	if len(rt.keys) < 2 {
		return false, nil
	}
	first := Slot(rt.argv[rt.keys[0]])
	same := true
	for _, i := range rt.keys[1:] {
		if Slot(rt.argv[i]) != first {
			same = false
			break
		}
	}
	kind := splitKind(rt.argv[0])
	if same || kind == mergeNone {
		return false, nil
	}
	sp := &rt.sp
	sp.parts, sp.partOf, sp.nodes = sp.parts[:0], sp.partOf[:0], sp.nodes[:0]
	read := rt.st.o.ReadFrom != ReadMasters && isRead(rt.argv[0])
	for _, i := range rt.keys {
		s := Slot(rt.argv[i])
		p := -1
		for j := range sp.parts {
			if sp.parts[j].slot == s {
				p = j
				break
			}
		}
		if p < 0 {
			m := rt.st.master[s].Load()
			if m == 0 {
				rt.routed = false
				return true, &driver.CommandError{What: cmd.Name, Msg: fmt.Sprintf("cluster routing: no node serves slot %d", s)}
			}
			node := int(m - 1)
			if read {
				node = rt.replica(s, node)
			}
			p = len(sp.parts)
			sp.parts = append(sp.parts, splitPart{node: node, slot: s})
			sp.nodes = append(sp.nodes, node)
		}
		sp.parts[p].to++ // counts the part's keys for now
		sp.partOf = append(sp.partOf, p)
	}
	off := 0
	for j := range sp.parts {
		n := sp.parts[j].to
		sp.parts[j].from, sp.parts[j].to = off, off
		off += n
	}
	if cap(sp.keyArg) < len(rt.keys) {
		sp.keyArg = make([]int, len(rt.keys))
	}
	sp.keyArg = sp.keyArg[:len(rt.keys)]
	for x, i := range rt.keys {
		p := &sp.parts[sp.partOf[x]]
		sp.keyArg[p.to] = i
		p.to++
	}
	sp.kind, sp.step, sp.next, sp.active = kind, 1, 0, true
	if kind == mergeOK {
		sp.step = 2
	}
	sp.merge = rt.newMerge()
	rt.routed = false
	return true, nil
}

// newMerge returns a free merge, set up for the command split.
func (rt *router) newMerge() int {
	sp := &rt.sp
	id := -1
	for i := range sp.merges {
		if !sp.merges[i].busy {
			id = i
			break
		}
	}
	if id < 0 {
		id = len(sp.merges)
		sp.merges = append(sp.merges, merge{})
	}
	m := &sp.merges[id]
	m.busy, m.kind, m.left = true, sp.kind, len(sp.parts)
	m.buf, m.sum, m.cache, m.err, m.fail = m.buf[:0], 0, driver.Cache{}, m.err[:0], false
	m.pos, m.start = m.pos[:0], m.start[:0]
	if sp.kind == mergeArray {
		for _, p := range sp.parts {
			m.start = append(m.start, int32(len(m.pos)))
			for _, a := range sp.keyArg[p.from:p.to] {
				m.pos = append(m.pos, int32(a-1)) // MGET's keys are arguments 1..n
			}
		}
		m.start = append(m.start, int32(len(m.pos)))
		if cap(m.elems) < len(rt.keys) {
			m.elems = make([]elem, len(rt.keys))
		}
		m.elems = m.elems[:len(rt.keys)]
	}
	return id
}

// resetMerges forgets the merges under way: the client's connections
// were all closed (it connects to node 0 again), so no part's reply will
// come.
func (rt *router) resetMerges() {
	for i := range rt.sp.merges {
		rt.sp.merges[i].busy = false
	}
	rt.sp.active = false
}

// encodePart appends the next part of the command split and returns its
// request.
func (rt *router) encodePart(out []byte, cmd *script.Command, tag int) ([]byte, request) {
	sp := &rt.sp
	p := &sp.parts[sp.next]
	before := len(out)
	out = AppendArrayHeader(out, 1+(p.to-p.from)*sp.step)
	out = AppendBulk(out, rt.argv[0])
	for _, a := range sp.keyArg[p.from:p.to] {
		out = AppendBulk(out, rt.argv[a])
		if sp.step == 2 {
			out = AppendBulk(out, rt.argv[a+1])
		}
	}
	req := request{cmd: cmd, tag: tag, sent: int64(len(out) - before), kind: classify(rt.argv[0]),
		merge: int32(sp.merge) + 1, part: int32(sp.next)}
	if sp.next++; sp.next == len(sp.parts) {
		sp.active = false
	}
	return out, req
}

// mergePart takes the reply of a part (req) into its merge: rep is then
// driver.Partial, or, for the last part, the command's reply.
func (s *Session) mergePart(rep *driver.Reply, req *request, vars *script.Vars, vals []Value, top int) error {
	m := &s.rt.sp.merges[req.merge-1]
	var c driver.Cache
	s.countReply(&c, req.kind, vals, top)
	m.cache.Hits += c.Hits
	m.cache.Misses += c.Misses
	m.cache.FieldHits += c.FieldHits
	m.cache.FieldMisses += c.FieldMisses
	m.cache.Sent += rep.Cache.Sent
	m.cache.Received += rep.Cache.Received
	v := &vals[top]
	switch {
	case m.fail:
	case v.IsError():
		m.failWith(v.Bytes)
	case m.kind == mergeArray:
		s.mergeElems(m, req.part, vals, top)
	case m.kind == mergeSum:
		if v.Kind != KindInt {
			m.failWith([]byte("ERR split by slot: a part's reply is not an integer"))
		}
		m.sum += v.Int
	}
	if m.left--; m.left > 0 {
		rep.Status, rep.Cache = driver.Partial, driver.Cache{}
		return nil
	}
	m.busy = false
	rep.Cache = m.cache
	if m.fail {
		s.err.msg = append(s.err.msg[:0], m.err...)
		rep.Status, rep.Err, rep.Class = driver.Failed, &s.err, ErrorClass(m.err)
		return nil
	}
	if req.cmd.GSet != script.NoGSet {
		if err := s.storeMerged(req.cmd, vars, m); err != nil {
			rep.Status, rep.Err = driver.Unstored, err
		}
	}
	return nil
}

func (m *merge) failWith(msg []byte) {
	m.fail = true
	m.err = append(m.err[:0], msg...)
}

// mergeElems copies the elements of part p's MGET reply to their places.
func (s *Session) mergeElems(m *merge, p int32, vals []Value, top int) {
	if vals[top].Kind != KindArray {
		m.failWith([]byte("ERR split by slot: a part's MGET reply is not an array"))
		return
	}
	pos := m.pos[m.start[p]:m.start[p+1]]
	j := 0
	for i := s.r.First(top); i >= 0; i = s.r.Next(i) {
		e := &vals[i]
		if j == len(pos) || e.IsAggregate() {
			break
		}
		from := int32(len(m.buf))
		m.buf = append(m.buf, e.Bytes...)
		m.elems[pos[j]] = elem{kind: e.Kind, i: e.Int, f: e.Float, from: from, to: int32(len(m.buf))}
		j++
	}
	if j != len(pos) || j != int(vals[top].Int) {
		m.failWith([]byte("ERR split by slot: a part's MGET reply does not have one element per key"))
	}
}

// storeMerged stores a merged reply for \gset or \aset, as store does
// the reply of one command.
func (s *Session) storeMerged(cmd *script.Command, vars *script.Vars, m *merge) error {
	switch m.kind {
	case mergeArray:
		var name [20]byte
		for i := range m.elems {
			e := &m.elems[i]
			v := Value{Kind: e.kind, Int: e.i, Float: e.f}
			if e.kind != KindNull {
				v.Bytes = m.buf[e.from:e.to]
			}
			if err := s.storeValue(cmd, vars, &v, strconv.AppendInt(name[:0], int64(i+1), 10)); err != nil {
				return err
			}
		}
		return nil
	case mergeSum:
		v := Value{Kind: KindInt, Int: m.sum}
		return s.storeValue(cmd, vars, &v, []byte("reply"))
	}
	v := Value{Kind: KindSimple, Bytes: []byte("OK")}
	return s.storeValue(cmd, vars, &v, []byte("reply"))
}

// splittable reports whether a cross-slot command can be split.
func splittable(name []byte) bool { return splitKind(name) != mergeNone }
