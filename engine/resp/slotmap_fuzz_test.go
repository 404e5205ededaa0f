package resp

import (
	"net"
	"testing"
)

// FuzzSlotMap feeds arbitrary replies to both slot map parsers: they
// never panic, and a map they return is sorted, in range and without
// overlaps.
func FuzzSlotMap(f *testing.F) {
	for _, s := range []string{clusterSlots, shardsRESP2, shardsRESP3, "*0\r\n", "-ERR no\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Reader
		if n, err := r.Parse(data); err != nil || n == 0 {
			return
		}
		for _, parse := range []func(*Reader) (SlotMap, error){ParseClusterSlots, ParseClusterShards} {
			m, err := parse(&r)
			if err != nil {
				continue
			}
			checkSlotMap(t, m)
		}
	})
}

func checkSlotMap(t *testing.T, m SlotMap) {
	t.Helper()
	if m.Covered() > SlotCount {
		t.Fatalf("covers %d slots", m.Covered())
	}
	for i, sr := range m.Ranges {
		if sr.Start > sr.End || sr.End >= SlotCount || (i > 0 && sr.Start <= m.Ranges[i-1].End) {
			t.Fatalf("range %d: %d-%d after %v", i, sr.Start, sr.End, m.Ranges[:i])
		}
		if m.Lookup(sr.Start) != &m.Ranges[i] || m.Lookup(sr.End) != &m.Ranges[i] {
			t.Fatalf("Lookup misses range %d-%d", sr.Start, sr.End)
		}
		if _, _, err := net.SplitHostPort(sr.Master.Addr); err != nil {
			t.Fatalf("master address %q: %v", sr.Master.Addr, err)
		}
	}
}

// FuzzRedirect: ParseRedirect never panics and what it accepts is a slot
// and an address that splits.
func FuzzRedirect(f *testing.F) {
	for _, s := range []string{"MOVED 3999 127.0.0.1:6381", "ASK 1 ::1:7000", "MOVED 2 :1", "ERR x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		r, ok := ParseRedirect(msg)
		if !ok {
			return
		}
		if r.Slot >= SlotCount {
			t.Fatalf("slot %d", r.Slot)
		}
		if _, _, err := net.SplitHostPort(r.Addr); err != nil {
			t.Fatalf("address %q: %v", r.Addr, err)
		}
	})
}
