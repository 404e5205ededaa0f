package engine

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Outage is one window of unavailability seen by a run under --reconnect:
// from the first connection failure while no window was open to the end
// of the first successful transaction of a client that lost its
// connection in it, that is, on a connection opened since. Failures while
// the window is open join it. Times are since the benchmark's start.
//
// Clients whose old connections still answer while the server goes down
// (a shutdown ends its backends one by one) do not end it: only a new
// connection shows that the service is back.
type Outage struct {
	Start time.Duration
	// End is the end of that first successful transaction; for a window
	// still open when the run ended, the end of the run.
	End time.Duration
	// Open is set when no transaction succeeded after the window began
	// before the run ended.
	Open bool
	// Recovered is when every client that lost its connection in the
	// window had completed a transaction again; 0 when some never did.
	Recovered time.Duration
	// Clients is the number of clients that lost their connection in the
	// window; Failures the transactions that failed for it.
	Clients  int
	Failures int64
	// First is the first failure's message, for the summary.
	First string
	// ReconnectFailures counts the failed reconnection attempts of the
	// window's clients; LastReconnectError is the last one's error, which
	// says why they could not come back.
	ReconnectFailures  int64
	LastReconnectError string
	down               int // clients of the window not yet back
}

// Duration is End - Start.
func (o *Outage) Duration() time.Duration { return o.End - o.Start }

// Unavailable returns the windows' total length and the longest.
func (r *Result) Unavailable() (total, longest time.Duration) {
	for i := range r.Outages {
		d := r.Outages[i].Duration()
		total, longest = total+d, max(longest, d)
	}
	return total, longest
}

// outages tracks the windows across every thread of a run. Failures and
// recoveries take its lock; a successful transaction checks only its own
// client's state, so that the hot path has no shared access while the
// service is up.
type outages struct {
	open atomic.Bool
	down atomic.Int64 // clients without a connection now
	mu   sync.Mutex
	list []Outage
}

// fail records that client c's transaction failed for its connection at
// now, on the run's clock.
func (o *outages) fail(c *client, now int64, msg string) (first bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.open.Load() {
		o.list = append(o.list, Outage{Start: time.Duration(now), First: msg})
		o.open.Store(true)
		first = true
	}
	cur := len(o.list) - 1
	w := &o.list[cur]
	w.Failures++
	if c.downIn < 0 {
		c.downIn = cur
		w.Clients++
		w.down++
		o.down.Add(1)
	}
	return first
}

// reconnectFailed records that client c's attempt to reconnect failed
// with err, in the window c went down in.
func (o *outages) reconnectFailed(c *client, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if c.downIn < 0 || c.downIn >= len(o.list) {
		return
	}
	w := &o.list[c.downIn]
	w.ReconnectFailures++
	w.LastReconnectError = oneLine(err.Error())
}

// oneLine joins a message's lines: pgconn's error for a list of hosts
// gives each host's on its own line.
func oneLine(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if b.Len() > 0 {
			if !strings.HasSuffix(b.String(), ":") {
				b.WriteString(";")
			}
			b.WriteString(" ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// succeed records the first successful transaction of c, down since it
// lost its connection, ending at now: it ends c's window if still open,
// and brings c back.
func (o *outages) succeed(c *client, now int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open.Load() && c.downIn == len(o.list)-1 {
		o.list[c.downIn].End = time.Duration(now)
		o.open.Store(false)
	}
	w := &o.list[c.downIn]
	if w.down--; w.down == 0 {
		w.Recovered = time.Duration(now)
	}
	c.downIn = -1
	o.down.Add(-1)
}

// windows returns the windows, the one still open closed at end.
func (o *outages) windows(end time.Duration) []Outage {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open.Load() {
		w := &o.list[len(o.list)-1]
		w.End, w.Open = max(end, w.Start), true
	}
	return append([]Outage(nil), o.list...)
}
