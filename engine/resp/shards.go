package resp

import (
	"errors"
	"fmt"
)

// ParseClusterShards builds a slot map from the CLUSTER SHARDS reply
// (Redis 7) that r's last Parse read: one entry a shard, each a map (or,
// in RESP2, a flat array of name, value) with "slots", a flat list of
// start and end slots, and "nodes", maps with "id", "port", "ip",
// "endpoint", "role" and "health". A node's address is its endpoint, else
// its ip. Shards without slots are left out. The map holds copies: it
// stays valid after r parses again.
func ParseClusterShards(r *Reader) (SlotMap, error) {
	var m SlotMap
	top, err := aggregate(r, r.Top(), "CLUSTER SHARDS reply")
	if err != nil {
		return m, err
	}
	for sh := r.First(top); sh >= 0; sh = r.Next(sh) {
		ranges, err := shard(r, sh)
		if err != nil {
			return SlotMap{}, fmt.Errorf("CLUSTER SHARDS: %w", err)
		}
		m.Ranges = append(m.Ranges, ranges...)
	}
	if err := m.finish(); err != nil {
		return SlotMap{}, fmt.Errorf("CLUSTER SHARDS: %w", err)
	}
	return m, nil
}

// shard returns the ranges of one shard, each with the shard's nodes.
func shard(r *Reader, sh int) ([]SlotRange, error) {
	slots, nodes, err := shardFields(r, sh)
	if err != nil {
		return nil, err
	}
	var master Node
	var replicas []Node
	hasMaster := false
	for n := r.First(nodes); n >= 0; n = r.Next(n) {
		node, role, err := shardNode(r, n)
		if err != nil {
			return nil, err
		}
		if role == "master" && !hasMaster {
			master, hasMaster = node, true
		} else {
			replicas = append(replicas, node)
		}
	}
	ranges, err := shardSlots(r, slots)
	if err != nil || len(ranges) == 0 {
		return nil, err
	}
	if !hasMaster {
		return nil, fmt.Errorf("slots %d-%d have no master", ranges[0].Start, ranges[0].End)
	}
	for i := range ranges {
		ranges[i].Master, ranges[i].Replicas = master, replicas
	}
	return ranges, nil
}

// shardFields finds the "slots" and "nodes" values of a shard.
func shardFields(r *Reader, sh int) (slots, nodes int, err error) {
	slots, nodes = -1, -1
	err = pairs(r, sh, "shard", func(name string, v int) error {
		switch name {
		case "slots":
			slots = v
		case "nodes":
			nodes = v
		}
		return nil
	})
	if err != nil {
		return -1, -1, err
	}
	if slots < 0 || nodes < 0 {
		return -1, -1, errors.New(`a shard lacks "slots" or "nodes"`)
	}
	if _, err := aggregate(r, slots, "slots"); err != nil {
		return -1, -1, err
	}
	_, err = aggregate(r, nodes, "nodes")
	return slots, nodes, err
}

// pairs calls f with each name and the index of its value in the map (or
// flat array) at i.
func pairs(r *Reader, i int, what string, f func(name string, v int) error) error {
	if _, err := aggregate(r, i, what); err != nil {
		return err
	}
	vals := r.Values()
	for k := r.First(i); k >= 0; {
		v := r.Next(k)
		if v < 0 {
			return fmt.Errorf("%s: a name without a value", what)
		}
		if isText(vals[k]) {
			if err := f(string(vals[k].Bytes), v); err != nil {
				return err
			}
		}
		k = r.Next(v)
	}
	return nil
}

func shardSlots(r *Reader, slots int) ([]SlotRange, error) {
	vals := r.Values()
	var ranges []SlotRange
	for s := r.First(slots); s >= 0; {
		e := r.Next(s)
		if e < 0 || vals[s].Kind != KindInt || vals[e].Kind != KindInt {
			return nil, errors.New(`"slots" is not a list of start and end slots`)
		}
		start, end, err := slotRange(vals[s].Int, vals[e].Int)
		if err != nil {
			return nil, err
		}
		ranges = append(ranges, SlotRange{Start: start, End: end})
		s = r.Next(e)
	}
	return ranges, nil
}

// shardNode reads one node's map.
func shardNode(r *Reader, n int) (Node, string, error) {
	var node Node
	var ip, endpoint, role string
	var port, tlsPort int64
	vals := r.Values()
	err := pairs(r, n, "node", func(name string, v int) error {
		val := &vals[v]
		switch name {
		case "id":
			node.ID = string(val.Bytes)
		case "ip":
			ip = string(val.Bytes)
		case "endpoint":
			endpoint = string(val.Bytes)
		case "role":
			role = string(val.Bytes)
		case "health":
			node.Health = string(val.Bytes)
		case "port":
			port = val.Int
		case "tls-port":
			tlsPort = val.Int
		}
		return nil
	})
	if err != nil {
		return node, "", err
	}
	if port == 0 {
		port = tlsPort // a node with TLS only
	}
	host := endpoint
	if host == "" || host == "?" {
		host = ip
	}
	node.Addr, err = nodeAddr(host, port)
	return node, role, err
}
