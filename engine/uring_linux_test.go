package engine_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
)

// Where io_uring is refused (an old kernel, io_uring_disabled, a
// container's seccomp profile), auto runs over epoll and says why; asked
// for by name, io_uring is an error.
func TestUringRefusedFallsBackToEpoll(t *testing.T) {
	restore := engine.RefuseUring(errors.New("operation not permitted"))
	defer restore()
	tr, why, err := engine.ResolveTransport(engine.TransportAuto)
	if err != nil || tr != engine.TransportEpoll {
		t.Fatalf("auto: %v %v, want epoll", tr, err)
	}
	if !strings.Contains(why, "io_uring") || !strings.Contains(why, "operation not permitted") {
		t.Errorf("the reason %q names neither io_uring nor the refusal", why)
	}
	if _, _, err := engine.ResolveTransport(engine.TransportUring); err == nil {
		t.Error("io_uring asked for by name was accepted where it is refused")
	}
	// A run over the fallback works.
	pg := testPG(t, "sslmode=disable")
	res, stderr := runScript(t, pg, "SELECT 1;\n", 0, func(c *engine.Config) {
		c.Transport, c.Clients, c.Threads, c.Transactions = engine.TransportAuto, 2, 1, 5
	})
	if res.Aborted != 0 || res.Stats.Total.Cnt != 10 {
		t.Fatalf("over the fallback: %d aborted, %d transactions\n%s", res.Aborted, res.Stats.Total.Cnt, stderr)
	}
	if res.Transport != engine.TransportEpoll {
		t.Errorf("the run used %v, want epoll", res.Transport)
	}
	restore()
	if tr, _, _ := engine.ResolveTransport(engine.TransportAuto); tr == engine.TransportUring {
		res, _ := runScript(t, pg, "SELECT 1;\n", 0, func(c *engine.Config) {
			c.Transport, c.Clients, c.Threads, c.Transactions = engine.TransportAuto, 2, 1, 5
		})
		if res.Transport != engine.TransportUring {
			t.Errorf("where io_uring is allowed, auto used %v", res.Transport)
		}
	}
}

// Clients that stop while others' replies are in flight: a connection's
// removal waits for the kernel to let go of it (under --rate an idle
// connection always has a receive posted), and whatever else completes
// meanwhile must still reach the loop. Those completions were
// once dropped, and the clients whose replies they carried waited
// forever (the run never ended).
func TestStopsAmidRepliesLoseNothing(t *testing.T) {
	pg := testPG(t, "sslmode=disable")
	for i := 0; i < 10; i++ {
		done := make(chan struct{})
		var res *engine.Result
		var stderr string
		go func() {
			defer close(done)
			res, stderr = runScript(t, pg, "SELECT pg_sleep(0.0005);\n", 0, func(c *engine.Config) {
				c.Clients, c.Threads, c.Transactions, c.Duration, c.Rate = 16, 1, 0, 300*time.Millisecond, 4000
			})
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: the run did not end 30 s after its 0.3 s", i)
		}
		if res.Aborted != 0 || res.Stats.Total.Cnt == 0 {
			t.Fatalf("round %d: %d aborted, %d transactions\n%s", i, res.Aborted, res.Stats.Total.Cnt, stderr)
		}
	}
}
