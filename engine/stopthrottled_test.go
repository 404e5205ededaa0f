package engine_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/script"
)

// TestFakeStopWhileThrottled: a run stopped (Ctrl-C, a cancelled context)
// while its clients wait for their --rate slots ends at once. It once
// never ended: the clients were set finished outside their state machine
// and never counted as ended, so the loops waited for them for ever. On
// the fake clock the stop comes at 1 s and the run must end then, not at
// its -T of a minute (nor never: the test's timeout then fails it).
func TestFakeStopWhileThrottled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := script.Parse("fake.sql", "SELECT 1;\n", 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := script.Compile([]*script.Script{s}, script.Extended, nil)
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer
		// 4 clients at 2 tps in all: at the stop every client waits for
		// its slot.
		cfg := &engine.Config{Program: p, Transport: engine.TransportPortable, Clients: 4, Threads: 2, Duration: time.Minute,
			Rate: 2, MaxTries: 1, Seed: 1, Scale: 1, SQL: fakeConnector{}, Stderr: &stderr}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			time.Sleep(time.Second)
			cancel()
		}()
		res, err := engine.Run(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Interrupted || res.Aborted != 0 || res.Bench > time.Second+100*time.Millisecond {
			t.Errorf("interrupted %v, aborted %d, ran %v on the fake clock (stopped at 1s)\n%s", res.Interrupted, res.Aborted, res.Bench, stderr.String())
		}
	})
}
