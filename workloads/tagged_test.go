package workloads

import (
	"testing"

	"github.com/gbench/gbench/engine/resp"
)

// TestTaggedItemKey: the ids of a group share a slot, neighbouring
// groups do not (the tags item:0 and item:1 differ), and the stale
// filter keeps exactly the tagged keys a tagged load of the items sets.
func TestTaggedItemKey(t *testing.T) {
	if k := TaggedItemKey(1); k != "gbench:{item:0}:1" {
		t.Errorf("TaggedItemKey(1) = %q", k)
	}
	if k := TaggedItemKey(65); k != "gbench:{item:1}:65" {
		t.Errorf("TaggedItemKey(65) = %q", k)
	}
	for g := int64(0); g < 4; g++ {
		slot := resp.Slot([]byte(TaggedItemKey(g*TagGroup + 1)))
		for id := g*TagGroup + 1; id <= (g+1)*TagGroup; id++ {
			if s := resp.Slot([]byte(TaggedItemKey(id))); s != slot {
				t.Fatalf("id %d: slot %d, its group's first id's %d", id, s, slot)
			}
		}
	}
	if resp.Slot([]byte(TaggedItemKey(1))) == resp.Slot([]byte(TaggedItemKey(65))) {
		t.Errorf("groups 0 and 1 share a slot")
	}
	o, err := Options{Items: 128, Tagged: true}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	drop := stale(o)
	for key, want := range map[string]bool{
		TaggedItemKey(1): false, TaggedItemKey(128): false, TaggedItemKey(129): true,
		"gbench:{item:1}:1": true, "gbench:{item:0}:01": true, "gbench:{item:x": true,
	} {
		if got := drop(key); got != want {
			t.Errorf("stale(%q) = %v, want %v", key, got, want)
		}
	}
	o.Tagged = false
	if !stale(o)(TaggedItemKey(1)) {
		t.Errorf("a load without --tagged keeps the tagged copies")
	}
}
