package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/stats"
)

// cacheSummary is a fake run of a \resp script whose MGET command (index
// 1) counted c.
func cacheSummary(t *testing.T, seed uint64, c stats.Cache) *Summary {
	t.Helper()
	s := fakeSummary(t, seed, "\\set k random(1, 10)\n\\resp MGET a:k b\n")
	s.Result.Stats.AddCache(0, 1, &c)
	return s
}

// TestMergeCache: a merge adds the cache counters exactly, in total and
// per command, and leaves its inputs alone.
func TestMergeCache(t *testing.T) {
	ca := stats.Cache{Hits: 10, Misses: 3, FieldHits: 1, FieldMisses: 2, BytesSent: 1000, BytesRecv: 4000}
	cb := stats.Cache{Hits: 5, Misses: 7, FieldHits: 0, FieldMisses: 4, BytesSent: 333, BytesRecv: 777}
	a, err := NewResult(cacheSummary(t, 1, ca), Versions{Gbench: "0.1.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewResult(cacheSummary(t, 2, cb), Versions{Gbench: "0.1.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := roundTrip(t, a), roundTrip(t, b)
	aCopy := roundTrip(t, a)
	m, err := Merge([]*Result{ra, rb})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ra, aCopy) {
		t.Error("Merge modified its first input")
	}
	sum := ca
	sum.Add(&cb)
	want := newCache(&sum)
	if !reflect.DeepEqual(m.Cache, want) {
		t.Errorf("merged cache %+v, want %+v", m.Cache, want)
	}
	if got := m.Scripts[0].Commands[1].Stats.Cache; !reflect.DeepEqual(got, want) {
		t.Errorf("merged MGET cache %+v, want %+v", got, want)
	}
	if m.Scripts[0].Commands[0].Stats.Cache != nil {
		t.Error("a \\set command has cache counters")
	}
}

// TestReadResultChecksCache: a negative cache counter is refused, naming
// the field.
func TestReadResultChecksCache(t *testing.T) {
	r, err := NewResult(cacheSummary(t, 1, stats.Cache{Hits: 1}), Versions{Gbench: "0.1.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Scripts[0].Commands[1].Stats.Cache.Misses = -1
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	_, err = ReadResult(&buf)
	if err == nil || !strings.Contains(err.Error(), "scripts[0].commands[1].stats.cache.misses") {
		t.Errorf("error %v, want it to name scripts[0].commands[1].stats.cache.misses", err)
	}
}
