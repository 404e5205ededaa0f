package resp

import (
	"context"
	"errors"
	"fmt"
)

// FetchSlotMap asks the seeds of a cluster's Options (Cluster set), in
// order, for the slot map, as a run's discovery does, on connections of
// its own: for tools that address each master themselves (gbench
// workloads load).
func FetchSlotMap(ctx context.Context, o Options) (SlotMap, error) {
	if !o.Cluster {
		return SlotMap{}, errors.New("redis: not a cluster URL")
	}
	if len(o.Seeds) == 0 {
		o.Seeds = []string{o.Addr}
	}
	return newClusterState(o).fetch(ctx)
}

// OnNode returns Options for a plain connection to one node of the
// cluster o names, at addr: no routing, no replica reads, no split.
func (o Options) OnNode(addr string) Options {
	o.Cluster, o.Seeds, o.Addr, o.ReadFrom, o.Split = false, nil, addr, ReadMasters, false
	return o
}

// ForKey returns Options for a plain connection to the master that serves
// key's slot when o names a cluster (reading the slot map once), and o
// itself otherwise: for the tools whose every command names that one key
// (the workers' rendezvous hash).
func ForKey(ctx context.Context, o Options, key string) (Options, error) {
	if !o.Cluster {
		return o, nil
	}
	m, err := FetchSlotMap(ctx, o)
	if err != nil {
		return o, err
	}
	slot := Slot([]byte(key))
	r := m.Lookup(slot)
	if r == nil {
		return o, fmt.Errorf("redis cluster: no master serves slot %d (key %s)", slot, key)
	}
	return o.OnNode(r.Master.Addr), nil
}
