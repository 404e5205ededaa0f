//go:build unix

package engine_test

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/script"
)

// TestIdleWaitsDoNotStallGCOrSignals: while every loop waits with nothing
// to do (each client in a 6 s \sleep), a garbage collection completes and
// a signal reaches its os/signal channel, both while the run still sleeps.
// A loop's wait that held its P through the sleep (a raw wait never
// interrupted, or one retried on EINTR) would hold both until the sleep
// ended: the test asserts that order, not a speed. The GC starts at the
// run's first progress tick, not a guessed time after Run, and the sleep's
// earliest end is counted from that tick.
func TestIdleWaitsDoNotStallGCOrSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps 6 s")
	}
	pg := testPG(t)
	s, err := script.Parse("t.sql", "\\sleep 6 s\nSELECT 1;\n", 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Prepared, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cfg := &engine.Config{Program: p, Transport: testTransport(t), Clients: 2, Threads: 2, Transactions: 1, MaxTries: 1,
		Seed: 1, Scale: 1, SQL: pgsql.Connector(pg), Stderr: &stderr, Tick: 500 * time.Millisecond}
	// The first progress tick comes half a second after the run started,
	// the clients then in their 6 s sleep (their first command) whatever
	// the connections took to open: the sleep ends 5.5 s after it at the
	// earliest.
	ticked := make(chan time.Time, 1)
	cfg.OnProgress = func(engine.Progress) {
		select {
		case ticked <- time.Now():
		default:
		}
	}
	done := make(chan struct{})
	var res *engine.Result
	var runErr error
	go func() {
		defer close(done)
		res, runErr = engine.Run(context.Background(), cfg)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	defer signal.Stop(sig)

	var tick time.Time
	select {
	case tick = <-ticked:
	case <-done:
		t.Fatalf("the run ended before its first progress tick: %v\n%s", runErr, stderr.String())
	}
	start := time.Now()
	runtime.GC()
	gcTook := time.Since(start)
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sig:
	case <-done:
		t.Fatal("the run ended before the signal was handled")
	}
	sigTook := time.Since(start)
	sleepEnd := tick.Add(6*time.Second - cfg.Tick)
	if time.Now().After(sleepEnd) {
		t.Fatalf("the garbage collection (%v) and the signal (%v) waited for the run's sleep to end", gcTook, sigTook)
	}
	t.Logf("during the loops' idle waits: a GC took %v, the signal arrived after %v", gcTook, sigTook)
	<-done
	if runErr != nil || res.Stats.Total.Cnt != 2 {
		t.Fatalf("run: %v, %v\n%s", runErr, res, stderr.String())
	}
}
