package resp

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
)

// Node is a cluster node as a slot map names it.
type Node struct {
	ID string // the node's 40-character ID; "" when the reply has none
	// Addr is "host:port". An empty host means the reply did not know the
	// node's endpoint ("" or "?"): use the host of the node that answered,
	// as the cluster specification says.
	Addr string
	// Health is CLUSTER SHARDS' "online", "failed" or "loading"; "" from
	// CLUSTER SLOTS, which lists only nodes it considers up.
	Health string
}

// SlotRange is a range of hash slots, Start to End inclusive, and the
// nodes that serve it.
type SlotRange struct {
	Start, End uint16
	Master     Node
	Replicas   []Node
}

// SlotMap is a cluster's slot map: ranges sorted by Start, not
// overlapping. A SlotMap is not modified after it is built and is then
// safe for concurrent reads.
type SlotMap struct {
	Ranges []SlotRange
}

// Lookup returns the range that holds slot, or nil when no node serves it.
func (m *SlotMap) Lookup(slot uint16) *SlotRange {
	i, _ := slices.BinarySearchFunc(m.Ranges, slot, func(r SlotRange, s uint16) int {
		return int(r.Start) - int(s)
	})
	if i < len(m.Ranges) && m.Ranges[i].Start == slot {
		return &m.Ranges[i]
	}
	if i > 0 && m.Ranges[i-1].End >= slot {
		return &m.Ranges[i-1]
	}
	return nil
}

// Covered is the number of slots some node serves (SlotCount when the
// cluster is whole).
func (m *SlotMap) Covered() int {
	n := 0
	for _, r := range m.Ranges {
		n += int(r.End) - int(r.Start) + 1
	}
	return n
}

// finish sorts the ranges and checks that they do not overlap.
func (m *SlotMap) finish() error {
	slices.SortFunc(m.Ranges, func(a, b SlotRange) int { return int(a.Start) - int(b.Start) })
	for i := 1; i < len(m.Ranges); i++ {
		if m.Ranges[i].Start <= m.Ranges[i-1].End {
			return fmt.Errorf("slot ranges %d-%d and %d-%d overlap",
				m.Ranges[i-1].Start, m.Ranges[i-1].End, m.Ranges[i].Start, m.Ranges[i].End)
		}
	}
	return nil
}

// slotRange checks a start and end slot from a reply.
func slotRange(start, end int64) (uint16, uint16, error) {
	if start < 0 || end < start || end >= SlotCount {
		return 0, 0, fmt.Errorf("invalid slot range %d-%d", start, end)
	}
	return uint16(start), uint16(end), nil
}

// ParseClusterSlots builds a slot map from the CLUSTER SLOTS reply that
// r's last Parse read: an array of [start, end, master, replica...], each
// node [ip, port, id, ...] (Redis 3 to 7; newer fields are ignored). The
// map holds copies: it stays valid after r parses again.
func ParseClusterSlots(r *Reader) (SlotMap, error) {
	var m SlotMap
	top, err := aggregate(r, r.Top(), "CLUSTER SLOTS reply")
	if err != nil {
		return m, err
	}
	for e := r.First(top); e >= 0; e = r.Next(e) {
		sr, err := slotsEntry(r, e)
		if err != nil {
			return SlotMap{}, fmt.Errorf("CLUSTER SLOTS: %w", err)
		}
		m.Ranges = append(m.Ranges, sr)
	}
	if err := m.finish(); err != nil {
		return SlotMap{}, fmt.Errorf("CLUSTER SLOTS: %w", err)
	}
	return m, nil
}

func slotsEntry(r *Reader, e int) (SlotRange, error) {
	var sr SlotRange
	if _, err := aggregate(r, e, "slot range"); err != nil {
		return sr, err
	}
	vals := r.Values()
	s, en := r.First(e), -1
	if s >= 0 {
		en = r.Next(s)
	}
	if s < 0 || en < 0 || vals[s].Kind != KindInt || vals[en].Kind != KindInt {
		return sr, errors.New("a slot range does not start with two integers")
	}
	var err error
	if sr.Start, sr.End, err = slotRange(vals[s].Int, vals[en].Int); err != nil {
		return sr, err
	}
	n := r.Next(en)
	if n < 0 {
		return sr, fmt.Errorf("slots %d-%d have no master", sr.Start, sr.End)
	}
	for i := n; i >= 0; i = r.Next(i) {
		node, err := slotsNode(r, i)
		if err != nil {
			return sr, fmt.Errorf("slots %d-%d: %w", sr.Start, sr.End, err)
		}
		if i == n {
			sr.Master = node
		} else {
			sr.Replicas = append(sr.Replicas, node)
		}
	}
	return sr, nil
}

// slotsNode reads [ip, port, id?, ...].
func slotsNode(r *Reader, i int) (Node, error) {
	if _, err := aggregate(r, i, "node"); err != nil {
		return Node{}, err
	}
	vals := r.Values()
	ip, port := r.First(i), -1
	if ip >= 0 {
		port = r.Next(ip)
	}
	if port < 0 || !isText(vals[ip]) || vals[port].Kind != KindInt {
		return Node{}, errors.New("a node is not [ip, port, ...]")
	}
	addr, err := nodeAddr(string(vals[ip].Bytes), vals[port].Int)
	if err != nil {
		return Node{}, err
	}
	n := Node{Addr: addr}
	if id := r.Next(port); id >= 0 && isText(vals[id]) {
		n.ID = string(vals[id].Bytes)
	}
	return n, nil
}

// nodeAddr joins a host and port; "?" is an unknown host (a NULL host
// arrives as an empty one).
func nodeAddr(host string, port int64) (string, error) {
	if port < 1 || port > 65535 {
		return "", fmt.Errorf("invalid port %d", port)
	}
	if host == "?" {
		host = ""
	}
	return net.JoinHostPort(host, strconv.FormatInt(port, 10)), nil
}

func isText(v Value) bool {
	return v.Kind == KindBulk || v.Kind == KindSimple || v.Kind == KindVerbatim || v.Kind == KindNull
}

// aggregate checks that the value at i is an array (or a RESP3 set or
// map) whose children were recorded.
func aggregate(r *Reader, i int, what string) (int, error) {
	if i < 0 {
		return -1, fmt.Errorf("no %s", what)
	}
	v := r.Values()[i]
	if v.IsError() {
		return -1, fmt.Errorf("%s is an error: %s", what, v.Bytes)
	}
	if !v.IsAggregate() || v.Kind == KindAttribute || v.Kind == KindPush {
		return -1, fmt.Errorf("%s is a %s, want an array", what, v.Kind)
	}
	if v.Children() > 0 && r.First(i) < 0 {
		return -1, fmt.Errorf("%s: elements not recorded (parse with enough depth)", what)
	}
	return i, nil
}
