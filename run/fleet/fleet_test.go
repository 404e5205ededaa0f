package fleet

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// board is a fake server: arrivals in memory, a clock skew seconds ahead
// of the processes', each request taking rtt.
type board struct {
	mu   sync.Mutex
	arr  map[string]map[int]time.Time
	skew time.Duration
	rtt  time.Duration
}

type boardConn struct {
	b     *board
	key   string
	index int
}

func (b *board) now() time.Time { return time.Now().Add(b.skew) }

func (c *boardConn) Arrive(_ context.Context, key string, index int) (bool, error) {
	time.Sleep(c.b.rtt)
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.b.arr == nil {
		c.b.arr = map[string]map[int]time.Time{}
	}
	if c.b.arr[key] == nil {
		c.b.arr[key] = map[int]time.Time{}
	}
	if _, ok := c.b.arr[key][index]; ok {
		return false, nil
	}
	c.b.arr[key][index] = c.b.now()
	c.key, c.index = key, index
	return true, nil
}

func (c *boardConn) Arrivals(_ context.Context, key string) (map[int]time.Time, time.Time, error) {
	time.Sleep(c.b.rtt / 2)
	c.b.mu.Lock()
	out := map[int]time.Time{}
	for k, v := range c.b.arr[key] {
		out[k] = v
	}
	now := c.b.now()
	c.b.mu.Unlock()
	time.Sleep(c.b.rtt / 2)
	return out, now, nil
}

func (c *boardConn) Close() error {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	delete(c.b.arr[c.key], c.index)
	return nil
}

// TestMeet: three workers arriving 0.3 s apart at a server whose clock
// is 5 s ahead get the same start on the server's clock, the last arrival
// plus the margin rounded up to a second, and each its local instant of
// it; the clock estimate is exact here, where requests take no time.
func TestMeet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &board{skew: 5 * time.Second}
		plans := make([]Plan, 3)
		var wg sync.WaitGroup
		for k := range plans {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Duration(k) * 300 * time.Millisecond)
				p, err := Meet(context.Background(), &boardConn{b: b}, Meeting{RunID: "r1", Index: k, Count: 3, Timeout: time.Minute})
				if err != nil {
					t.Error(err)
				}
				plans[k] = p
			}()
		}
		wg.Wait()
		base := time.Date(2000, 1, 1, 0, 0, 5, 0, time.UTC) // the server's clock at the first arrival
		want := base.Add(600*time.Millisecond + Margin).Truncate(time.Second).Add(time.Second)
		for k, p := range plans {
			if !p.Start.Equal(want) {
				t.Errorf("worker %d: start %v, want %v", k, p.Start, want)
			}
			if p.Offset != b.skew || p.Error != 0 {
				t.Errorf("worker %d: offset %v ± %v, want %v", k, p.Offset, p.Error, b.skew)
			}
			if local := p.Local.Add(b.skew); !local.Equal(want) {
				t.Errorf("worker %d: local start %v is %v on the server", k, p.Local, local)
			}
			if got := p.Arrived; !got.Equal(base.Add(time.Duration(k) * 300 * time.Millisecond)) {
				t.Errorf("worker %d: arrived %v", k, got)
			}
		}
	})
}

// TestMeetClockError: with requests taking 10 ms, the clock offset is
// known to 5 ms, and is within that of the truth.
func TestMeetClockError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &board{skew: -2 * time.Second, rtt: 10 * time.Millisecond}
		p, err := Meet(context.Background(), &boardConn{b: b}, Meeting{RunID: "r", Index: 0, Count: 1, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if p.Error != 5*time.Millisecond || p.Offset-b.skew > p.Error || b.skew-p.Offset > p.Error {
			t.Errorf("offset %v ± %v, true %v", p.Offset, p.Error, b.skew)
		}
	})
}

func TestMeetRefuses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		b := &board{}
		first := &boardConn{b: b}
		if ok, _ := first.Arrive(ctx, Key("dup"), 1); !ok {
			t.Fatal("first arrival refused")
		}
		_, err := Meet(ctx, &boardConn{b: b}, Meeting{RunID: "dup", Index: 1, Count: 2, Timeout: time.Second})
		if err == nil || !strings.Contains(err.Error(), "worker 1 of run \"dup\" has arrived already") {
			t.Errorf("same index twice: %v", err)
		}

		_, err = Meet(ctx, &boardConn{b: b}, Meeting{RunID: "alone", Index: 0, Count: 3, Timeout: 2 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "timed out after 2s waiting for workers 1, 2 of run \"alone\" (arrived: 0)") {
			t.Errorf("others missing: %v", err)
		}

		if ok, _ := (&boardConn{b: b}).Arrive(ctx, Key("more"), 5); !ok {
			t.Fatal("arrival refused")
		}
		_, err = Meet(ctx, &boardConn{b: b}, Meeting{RunID: "more", Index: 0, Count: 2, Timeout: time.Second})
		if err == nil || !strings.Contains(err.Error(), "worker 5 arrived for run \"more\", which has 2 workers") {
			t.Errorf("a worker of another run: %v", err)
		}

		ctx2, cancel := context.WithCancel(ctx)
		time.AfterFunc(time.Second, cancel)
		_, err = Meet(ctx2, &boardConn{b: b}, Meeting{RunID: "cancel", Index: 0, Count: 2, Timeout: time.Minute})
		if err == nil || !strings.Contains(err.Error(), "interrupted while waiting for workers 1") {
			t.Errorf("cancelled: %v", err)
		}
	})
}

func TestAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		at := time.Now().Add(90 * time.Second).Round(0)
		p := At(at)
		if !p.Start.Equal(at) || time.Until(p.Local) != 90*time.Second {
			t.Errorf("plan %+v for %v", p, at)
		}
	})
}

// TestSeed pins the seed of a run id: workers of different builds of
// gbench must agree on it too, so it may not change.
func TestSeed(t *testing.T) {
	for _, tt := range []struct {
		runID string
		want  uint64
	}{
		{"r1", 8832672904084714543},
		{"start-at 2026-06-01T12:00:00Z", 14078804010156583474},
	} {
		if got := Seed(tt.runID); got != tt.want {
			t.Errorf("Seed(%q) = %d, want %d", tt.runID, got, tt.want)
		}
	}
	if Seed("r1") == Seed("r2") {
		t.Error("two run ids, one seed")
	}
}
