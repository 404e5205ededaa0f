package runenv

import (
	"strings"
	"testing"
)

func TestPostgresActivity(t *testing.T) {
	before := &PostgresCounters{WAL: 1000, CheckpointsTimed: 5, CheckpointsRequested: 1,
		Vacuums: map[string]TableVacuums{"public.a": {1, 1}, "public.b": {0, 2}}}
	after := &PostgresCounters{WAL: 5096, CheckpointsTimed: 5, CheckpointsRequested: 2,
		Vacuums: map[string]TableVacuums{"public.a": {2, 1}, "public.b": {0, 2}, "public.c": {0, 1}},
		Workers: []string{"autovacuum: VACUUM public.d"}}
	a := after.Since(before)
	if a.WALBytes == nil || *a.WALBytes != 4096 || a.Checkpoints != 1 || a.CheckpointsRequested != 1 ||
		a.Autovacuums != 1 || a.Autoanalyzes != 1 || strings.Join(a.Tables, ",") != "public.a,public.c" || len(a.Workers) != 1 {
		t.Fatalf("%+v", a)
	}
	w := a.Warnings()
	if len(w) != 2 || w[0] != "1 checkpoint ran inside the measured window" ||
		w[1] != "autovacuum ran inside the measured window (1 vacuum, 1 analyze on public.a, public.c)" {
		t.Errorf("warnings %q", w)
	}
	// Nothing happened: no warning. A worker running at either end still
	// overlapped the window.
	quiet := before.Since(before)
	if quiet.Warnings() != nil {
		t.Errorf("quiet window: %q", quiet.Warnings())
	}
	before.Workers = []string{"autovacuum: VACUUM ANALYZE public.e"}
	if w := before.Since(before).Warnings(); len(w) != 1 || !strings.Contains(w[0], "public.e") {
		t.Errorf("running worker: %q", w)
	}
	// An unknown WAL position is absent, with its reason.
	before.WALNote = "the WAL position is unknown: recovery is in progress"
	if a := after.Since(before); a.WALBytes != nil || a.WALNote != before.WALNote {
		t.Errorf("unknown WAL: %+v", a)
	}
}

func TestRedisActivity(t *testing.T) {
	before, after := &RedisCounters{Forks: 3, Evicted: 10}, &RedisCounters{Forks: 4, Evicted: 12, Expired: 1}
	a := after.Since(before)
	if a.Forks != 1 || a.Evicted != 2 || a.Expired != 1 {
		t.Fatalf("%+v", a)
	}
	w := (&Activity{Redis: a}).Warnings()
	if len(w) != 2 || !strings.Contains(w[0], "forked 1 time") || !strings.Contains(w[1], "evicted 2 keys") {
		t.Errorf("warnings %q", w)
	}
	if (*Activity)(nil).Warnings() != nil {
		t.Error("a nil activity warns")
	}
}

func TestThisMachine(t *testing.T) {
	m := ThisMachine()
	if m.Cores < 1 || m.OS.Sysname == "" || len(m.Load) != 3 {
		t.Errorf("%+v", m)
	}
}
