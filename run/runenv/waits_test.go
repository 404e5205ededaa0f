package runenv

import (
	"context"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/testsrv"
)

// TestWaitSampler holds one session in pg_sleep and another waiting for
// a table a third has locked, and checks that the profile the sampler
// reads from pg_stat_activity shows both waits, each in every read, and
// does not count the sampler itself.
func TestWaitSampler(t *testing.T) {
	srv := testsrv.StartPostgres(t, testsrv.PGOptions{})
	ctx := context.Background()
	open := func() *pgsql.Client {
		c, err := pgsql.Open(ctx, srv.ConnString())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	holder, sleeper, waiter, sampler, watcher := open(), open(), open(), open(), open()
	if err := holder.Exec(ctx, "CREATE TABLE locked (k int)"); err != nil {
		t.Fatal(err)
	}
	if err := holder.Exec(ctx, "BEGIN; LOCK TABLE locked IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	// Both waits last until the holder commits, after the sampling: the
	// sleep is 30 s (the test's own bound), the lock wait has none.
	sleepDone, lockDone := make(chan error, 1), make(chan error, 1)
	go func() { sleepDone <- sleeper.Exec(ctx, "SELECT pg_sleep(30)") }()
	go func() { _, err := waiter.QueryText(ctx, "SELECT count(*) FROM locked"); lockDone <- err }()
	// Wait until both are seen waiting, so that every read of the sampler
	// must find them.
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Asked on a connection of its own: the holder, had it asked,
		// could be read in the instant between its reply and its wait
		// for the next query (idle in transaction, no wait event yet).
		rows, err := watcher.QueryText(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event IN ('PgSleep', 'relation')")
		if err != nil {
			t.Fatal(err)
		}
		if rows[0][0] == "2" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the two sessions did not start waiting within 30 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	w, err := StartWaits(ctx, sampler, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	p := w.Stop()
	if p.Reads < 2 || p.Note != "" {
		t.Fatalf("profile %+v", p)
	}
	t.Logf("%d reads: %+v; cost %+v (backend CPU %v)", p.Reads, p.Events, p.Cost, deref(p.Cost.BackendCPUS))
	found := map[string]int64{}
	for _, e := range p.Events {
		found[e.Name()] = e.Count
		if e.State == "active" && e.Type == "" && e.Event == "" {
			// The sampler's backend would be active on a CPU during
			// its own read: it must not be counted.
			t.Errorf("a backend active on a CPU was counted: %+v (the sampler's own?)", e)
		}
	}
	for _, name := range []string{"Timeout:PgSleep", "Lock:relation"} {
		if found[name] != p.Reads {
			t.Errorf("%s counted %d times in %d reads; profile %+v", name, found[name], p.Reads, p.Events)
		}
	}
	// The holder sits idle in its transaction.
	if found["Client:ClientRead (idle in transaction)"] != p.Reads {
		t.Errorf("the lock holder: profile %+v", p.Events)
	}
	if p.Cost.Queries < p.Reads || p.Cost.QueriesPerS <= 0 {
		t.Errorf("cost %+v", p.Cost)
	}
	if p.Cost.BackendCPUS == nil && p.Cost.BackendCPUNote == "" {
		t.Errorf("cost: neither the backend's CPU nor why not: %+v", p.Cost)
	}
	if err := holder.Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if err := <-lockDone; err != nil {
		t.Error(err)
	}
	if _, err := holder.QueryText(ctx, "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'"); err != nil {
		t.Fatal(err)
	}
	<-sleepDone // canceled: an error, as asked
}

func deref(p *float64) any {
	if p == nil {
		return "absent"
	}
	return *p
}
