package report

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

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

// cacheWorker is worker k of a 2-worker run of cacheSummary's script,
// run with --resp-stats or not.
func cacheWorker(t *testing.T, k int, c stats.Cache, respStats bool) *Result {
	t.Helper()
	s := cacheSummary(t, uint64(k+1), c)
	s.RESPStats = respStats
	r, err := NewResult(s, Versions{Gbench: "0.1.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1_800_000_000, 0).UTC()
	r.Start = start
	r.Worker = &Worker{RunID: "run", Index: k, Count: 2, RunClients: 8, RunThreads: 4, RunRate: 1000,
		Start: WorkerStart{Method: "postgres", Planned: start, LateS: 0.001 * float64(k), LateBoundS: 0.1}}
	return roundTrip(t, r)
}

// TestFleetTextCache: the merge of two workers' results run with
// --resp-stats adds their counters exactly in the JSON, and its summary
// prints the lines one run with --resp-stats prints, with the sums, in
// total and per command; without --resp-stats neither does.
func TestFleetTextCache(t *testing.T) {
	ca := stats.Cache{Hits: 10, Misses: 3, FieldHits: 1, FieldMisses: 2, BytesSent: 1000, BytesRecv: 4000}
	cb := stats.Cache{Hits: 5, Misses: 7, FieldMisses: 4, BytesSent: 333, BytesRecv: 777}
	sum := ca
	sum.Add(&cb)
	for _, on := range []bool{true, false} {
		a, b := cacheWorker(t, 0, ca, on), cacheWorker(t, 1, cb, on)
		m, err := Merge([]*Result{a, b})
		if err != nil {
			t.Fatal(err)
		}
		if m.Fleet == nil || m.Config.RESPStats != on {
			t.Fatalf("fleet %+v, resp_stats %v", m.Fleet, m.Config.RESPStats)
		}
		// The merged JSON, read back: exact sums.
		var doc bytes.Buffer
		if err := m.Write(&doc); err != nil {
			t.Fatal(err)
		}
		back, err := ReadResult(&doc)
		if err != nil {
			t.Fatal(err)
		}
		want := newCache(&sum)
		if !reflect.DeepEqual(back.Cache, want) || !reflect.DeepEqual(back.Scripts[0].Commands[1].Stats.Cache, want) {
			t.Errorf("merged cache %+v, MGET's %+v, want %+v", back.Cache, back.Scripts[0].Commands[1].Stats.Cache, want)
		}
		var text bytes.Buffer
		if err := MergeSummary(&text, back); err != nil {
			t.Fatal(err)
		}
		txns := back.Counters.Processed
		lines := []string{
			"resp keyspace hits = 15, misses = 10 (hit ratio 60.000%)\n",
			"resp hash fields found = 1, missing = 6\n",
			fmt.Sprintf("resp bytes sent = 1333 (%s per transaction), received = 4777 (%s per transaction)\n",
				cfloat(float64(1333)/float64(txns), 1), cfloat(float64(4777)/float64(txns), 1)),
			"resp counters per command (hits, misses, fields found, fields missing, bytes sent, bytes received):\n",
			fmt.Sprintf("   %10d %10d %10d %10d %12d %12d  %s\n", 15, 10, 1, 6, 1333, 4777, `\resp MGET a:k b`),
		}
		for _, l := range lines {
			if strings.Contains(text.String(), l) != on {
				t.Errorf("resp_stats %v: %q printed %v:\n%s", on, l, !on, text.String())
			}
		}
		if !strings.Contains(text.String(), "workers merged: 2 of 2 (0, 1)\n") {
			t.Errorf("not the fleet's summary:\n%s", text.String())
		}
	}
}
