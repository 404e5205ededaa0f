package engine_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// fakeConnector opens in-memory connections (net.Pipe) to a fake server
// that answers every line with "K\n", after latency for each batch of
// lines it reads at once, on the clock of the
// synctest bubble the run is in. It needs no server and no socket, so the
// state machine's timing can be tested on a fake clock: every goroutine of
// the run, the portable transport's readers included, blocks on channels
// and timers of the bubble.
type fakeConnector struct {
	latency   time.Duration
	failEvery int // see fakeDriver
	// rollbacks, when set, makes the driver transactional: a failed reply
	// leaves a transaction block open, which the engine must roll back;
	// the rollbacks are counted here.
	rollbacks *atomic.Int64
}

func (f fakeConnector) Connect(ctx context.Context, _ driver.Dial, _ *script.Program, _ func(string, string)) (net.Conn, driver.Driver, error) {
	client, server := net.Pipe()
	go f.serve(server)
	d := &fakeDriver{failEvery: f.failEvery}
	if f.rollbacks != nil {
		return client, &fakeTxDriver{fakeDriver: d, rollbacks: f.rollbacks}, nil
	}
	return client, d, nil
}

// reply is the fake server's answer to every request.
var reply = []byte("K\n")

func (f fakeConnector) serve(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		// One latency per batch of requests read together, as a server
		// that works a pipeline off in one go.
		if f.latency > 0 {
			time.Sleep(f.latency)
		}
		for range bytes.Count(buf[:n], []byte{'\n'}) {
			if _, err := c.Write(reply); err != nil {
				return
			}
		}
	}
}

// fakeDriver sends one line per command and takes one "K\n" line as its
// reply: a success, or with failEvery n > 0 a serialization failure for
// every n-th reply (counted per connection, from the first).
type fakeDriver struct {
	tags      []int
	failEvery int
	replies   int  // replies to the script's commands
	inTx      bool // a failure left a transaction block open
}

func (d *fakeDriver) Name() string { return "SQL" }

func (d *fakeDriver) Encode(out []byte, _ *script.Command, tag int, _ *script.Vars) ([]byte, error) {
	d.tags = append(d.tags, tag)
	return append(out, "Q\n"...), nil
}

func (d *fakeDriver) Decode(in []byte, _ *script.Vars, r *driver.Reply) (int, bool, error) {
	i := bytes.IndexByte(in, '\n')
	if i < 0 {
		return 0, false, nil
	}
	*r = driver.Reply{Tag: d.tags[0], Status: driver.OK}
	d.tags = d.tags[:copy(d.tags, d.tags[1:])] // in place: the driver allocates nothing per reply
	if r.Tag < 0 {                             // the ROLLBACK
		d.inTx = false
		return i + 1, true, nil
	}
	if d.replies++; d.failEvery > 0 && (d.replies-1)%d.failEvery == 0 {
		r.Status, r.Err = driver.Serialization, errors.New("could not serialize access due to concurrent update")
		d.inTx = true
	}
	return i + 1, true, nil
}

func (d *fakeDriver) Need() int { return 2 }

// fakeTxDriver is a fakeDriver whose server keeps a transaction block
// open after a failure, until a ROLLBACK.
type fakeTxDriver struct {
	*fakeDriver
	rollbacks *atomic.Int64
}

func (d *fakeTxDriver) InTransaction() bool { return d.inTx }

func (d *fakeTxDriver) Rollback(out []byte) []byte {
	d.rollbacks.Add(1)
	d.tags = append(d.tags, -1)
	return append(out, "R\n"...)
}
func (d *fakeDriver) Pending() int { return len(d.tags) }

// fakeRun runs text on the fake server inside the calling synctest bubble.
func fakeRun(t *testing.T, text string, latency time.Duration, edit func(*engine.Config)) *engine.Result {
	t.Helper()
	return fakeRunOn(t, fakeConnector{latency: latency}, text, edit)
}

// fakeRunOn runs text with connections from fc.
func fakeRunOn(t *testing.T, fc fakeConnector, text string, edit func(*engine.Config)) *engine.Result {
	t.Helper()
	s, err := script.Parse("fake.sql", text, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Extended, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cfg := &engine.Config{Program: p, Transport: engine.TransportPortable, Clients: 1, Threads: 1, Transactions: 1,
		MaxTries: 1, Seed: 1, Scale: 1, SQL: fc, Stderr: &stderr}
	if edit != nil {
		edit(cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(context.Background(), cfg)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if res.Aborted != 0 {
		t.Fatalf("%d clients aborted:\n%s", res.Aborted, stderr.String())
	}
	return res
}

// TestFakeRateScheduleAndEnd: on the fake clock, with a server that answers
// at once, a --rate run takes exactly the slots of the seeded Poisson
// schedule up to -T (none is late: the lag is 0), and ends by -T. No
// server, no speed: the schedule itself is the expectation.
func TestFakeRateScheduleAndEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rate, d, seed = 1000.0, 10 * time.Second, 7
		res := fakeRun(t, "SELECT 1;\n", 0, func(c *engine.Config) {
			c.Clients, c.Transactions, c.Duration, c.Rate, c.Seed = 4, 0, d, rate, seed
		})
		want := scheduledSlots(seed, 4, rate, d)
		if got := res.Stats.Total.Cnt; got != want {
			t.Errorf("%d transactions, want the schedule's %d slots up to %v", got, want, d)
		}
		if lag := res.Stats.Total.Lag.Max; lag != 0 {
			t.Errorf("largest lag %v us on a server that answers at once", lag)
		}
		// The run ends with its last transaction, the one of the last slot
		// before -T (at 1000 tps, a few ms before it with this seed): never
		// after -T, since the server answers at once.
		if res.Bench > d || res.Bench < d-100*time.Millisecond {
			t.Errorf("-T %v ran %v on the fake clock", d, res.Bench)
		}
	})
}

// TestFakeRateLag: one client at 100 tps on a server that takes 8 ms,
// so that some slots fall due while the client is busy. On the fake
// clock a slot's transaction starts when it falls due or when the client
// is free, whichever is later, and its lag is that start minus the slot;
// the client takes no slot once it is free at or after -T. Replaying the
// seeded schedule so gives the run's count and its exact lags.
func TestFakeRateLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rate, d, seed, latency = 100.0, 2 * time.Second, 5, 8 * time.Millisecond
		res := fakeRun(t, "SELECT 1;\n", latency, func(c *engine.Config) {
			c.Clients, c.Transactions, c.Duration, c.Rate, c.Seed = 1, 0, d, rate, seed
		})
		var free, maxLag, sumLag time.Duration
		var n, late int64
		for _, slot := range slotTimes(seed, 1, rate, d) {
			start := max(slot, free)
			if start >= d {
				break
			}
			lag := start - slot
			if lag > 0 {
				late++
			}
			maxLag, sumLag, n = max(maxLag, lag), sumLag+lag, n+1
			free = start + latency
		}
		if late == 0 {
			t.Fatal("the seed gives no late slot: the test would not test the lag")
		}
		lag := res.Stats.Total.Lag
		if got := res.Stats.Total.Cnt; got != n {
			t.Errorf("%d transactions, want the replayed schedule's %d", got, n)
		}
		if want := float64(maxLag.Microseconds()); lag.Max != want {
			t.Errorf("largest lag %v us, want %v", lag.Max, want)
		}
		if got, want := lag.Mean(), float64(sumLag.Microseconds())/float64(n); got < want-1e-6 || got > want+1e-6 {
			t.Errorf("mean lag %.3f us, want %.3f (%d of %d slots late)", got, want, late, n)
		}
		if want := int64(len(slotTimes(seed, 1, rate, d))) - n; res.Unstarted != want {
			t.Errorf("%d slots unstarted, want %d", res.Unstarted, want)
		}
	})
}

// TestFakeRateUnstarted: one client at 100 tps on a server that takes
// 300 ms falls further behind with every transaction; when -T comes, the
// slots it has not reached were due but never start, and no transaction
// sees their lag. Result.Unstarted counts them: with the replayed run,
// they and the transactions make up the schedule up to -T.
func TestFakeRateUnstarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rate, d, seed, latency = 100.0, 2 * time.Second, 5, 300 * time.Millisecond
		res := fakeRun(t, "SELECT 1;\n", latency, func(c *engine.Config) {
			c.Clients, c.Transactions, c.Duration, c.Rate, c.Seed = 1, 0, d, rate, seed
		})
		slots := slotTimes(seed, 1, rate, d)
		var free time.Duration
		var n int64
		for _, slot := range slots {
			start := max(slot, free)
			if start >= d {
				break
			}
			n, free = n+1, start+latency
		}
		got := res.Stats.Total.Cnt
		if got != n || res.Unstarted != int64(len(slots))-n {
			t.Errorf("%d transactions and %d unstarted, want %d and %d of the %d slots", got, res.Unstarted, n, int64(len(slots))-n, len(slots))
		}
		if res.Unstarted < 100 {
			t.Errorf("only %d slots unstarted: the test would not test them", res.Unstarted)
		}
	})
}

// TestFakeLatencyIsTheServers: on the fake clock a closed-loop client's
// transactions take exactly the server's latency, and -t ends the run
// after its transactions.
func TestFakeLatencyIsTheServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const latency = 3 * time.Millisecond
		res := fakeRun(t, "SELECT 1;\nSELECT 2;\n", latency, func(c *engine.Config) {
			c.Clients, c.Transactions = 2, 10
		})
		if got := res.Stats.Total.Cnt; got != 20 {
			t.Errorf("%d transactions, want 2 clients × 10", got)
		}
		// Two commands, one server latency each.
		if min, max := res.Stats.Total.Latency.Min, res.Stats.Total.Latency.Max; min != 6000 || max != 6000 {
			t.Errorf("latency from %v to %v us, want 6000 (two answers of %v)", min, max, latency)
		}
	})
}

// TestFakeRetries: a transaction whose first try fails with a
// serialization failure is retried under --max-tries 2 and counted once,
// as retried, after a ROLLBACK where the server keeps the failed
// transaction block open; with --max-tries 1 it fails and the client goes
// on.
func TestFakeRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Every other reply fails: the first try of each transaction.
		fc := fakeConnector{latency: time.Millisecond, failEvery: 2}
		res := fakeRunOn(t, fc, "SELECT 1;\n", func(c *engine.Config) {
			c.Clients, c.Transactions, c.MaxTries = 2, 5, 2
		})
		tx := res.Stats.Total
		if tx.Cnt != 10 || tx.Retried != 10 || tx.Retries != 10 || tx.Failures() != 0 {
			t.Errorf("--max-tries 2: %d done, %d retried (%d retries), %d failed; want 10, 10 (10), 0", tx.Cnt, tx.Retried, tx.Retries, tx.Failures())
		}
		// A transactional server: every failure is rolled back before the
		// retry.
		var rollbacks atomic.Int64
		fc.rollbacks = &rollbacks
		res = fakeRunOn(t, fc, "SELECT 1;\n", func(c *engine.Config) {
			c.Clients, c.Transactions, c.MaxTries = 2, 5, 2
		})
		tx = res.Stats.Total
		if tx.Cnt != 10 || tx.Retried != 10 || rollbacks.Load() != 10 {
			t.Errorf("with rollbacks: %d done, %d retried, %d rolled back; want 10, 10, 10", tx.Cnt, tx.Retried, rollbacks.Load())
		}
		fc.rollbacks = nil
		// Every reply fails: with one try each transaction fails.
		fc.failEvery = 1
		res = fakeRunOn(t, fc, "SELECT 1;\n", func(c *engine.Config) {
			c.Clients, c.Transactions, c.MaxTries = 2, 5, 1
		})
		tx = res.Stats.Total
		if tx.Cnt != 0 || tx.SerializationFailures != 10 || tx.Retried != 0 {
			t.Errorf("--max-tries 1: %d done, %d serialization failures, %d retried; want 0, 10, 0", tx.Cnt, tx.SerializationFailures, tx.Retried)
		}
	})
}

// TestFakeLatencyLimitSkips: one client at 1000 tps on a server that takes
// 5 ms cannot keep up; under --latency-limit 2ms the slots already later
// than the limit when the client is free are skipped, not run. Every slot
// of the schedule up to -T is then either run or skipped, except those
// that fall due during the client's last transaction.
func TestFakeLatencyLimitSkips(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const rate, d, seed = 1000.0, 2 * time.Second, 3
		res := fakeRun(t, "SELECT 1;\n", 5*time.Millisecond, func(c *engine.Config) {
			c.Clients, c.Transactions, c.Duration, c.Rate, c.Seed = 1, 0, d, rate, seed
			c.LatencyLimit = 2 * time.Millisecond
		})
		tx := res.Stats.Total
		slots := scheduledSlots(seed, 1, rate, d)
		if tx.Skipped == 0 || tx.Cnt == 0 || tx.Cnt > int64(d/(5*time.Millisecond)) {
			t.Errorf("%d done, %d skipped of %d slots: a 5 ms server allows at most %d", tx.Cnt, tx.Skipped, slots, d/(5*time.Millisecond))
		}
		// The client is free again at most one transaction (5 ms) after any
		// moment, and then runs or skips every slot already due; only the
		// slots of its last transaction's time before -T may be neither.
		least := scheduledSlots(seed, 1, rate, d-5*time.Millisecond)
		if n := tx.Cnt + tx.Skipped; n < least || n > slots {
			t.Errorf("%d done + %d skipped = %d, want between the schedule's %d slots up to -T minus 5 ms and its %d up to -T", tx.Cnt, tx.Skipped, n, least, slots)
		}
	})
}

// TestFakePipeline: the commands of a \startpipeline block go out
// together and wait for the server once; outside a pipeline each command
// waits for its own answer.
func TestFakePipeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const latency = 2 * time.Millisecond
		three := "SELECT 1;\nSELECT 2;\nSELECT 3;\n"
		res := fakeRun(t, three, latency, nil)
		if got := res.Stats.Total.Latency.Max; got != 6000 {
			t.Errorf("three commands one by one took %v us, want 6000", got)
		}
		res = fakeRun(t, "\\startpipeline\n"+three+"\\endpipeline\n", latency, nil)
		if got := res.Stats.Total.Latency.Max; got != 2000 {
			t.Errorf("three pipelined commands took %v us, want 2000 (one round trip)", got)
		}
	})
}

// TestFakeHotPathAllocatesNothing is TestHotPathAllocatesNothing without a
// server: the state machine, the portable transport and the statistics
// over the fake driver (which allocates nothing per request itself). Runs
// of 5000 and 15000 transactions per client have the same setup, so the
// difference is what 20000 more transactions allocated: at most 0.01 each,
// 200 in all, well above the few tens by which runs differ (GC, timers).
func TestFakeHotPathAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations are counted without the race detector")
	}
	synctest.Test(t, func(t *testing.T) {
		src := "\\set aid random(1, 100000)\nSELECT :aid;\nSELECT 2;\n"
		mallocs := func(n int64) uint64 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			fakeRun(t, src, 0, func(c *engine.Config) { c.Clients, c.Transactions, c.PerCommand = 2, n, true })
			runtime.ReadMemStats(&after)
			return after.Mallocs - before.Mallocs
		}
		mallocs(100) // what only the first run allocates
		small, large := mallocs(5000), mallocs(15000)
		perTxn := (float64(large) - float64(small)) / 20000
		t.Logf("%d vs %d allocations: %.4f per transaction", small, large, perTxn)
		if perTxn > 0.01 {
			t.Errorf("%.4f allocations per transaction in steady state", perTxn)
		}
	})
}
