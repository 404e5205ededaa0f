package engine

// timerEntry is a client waiting for a moment: the end of a \sleep or its
// scheduled start under --rate.
type timerEntry struct {
	at int64
	c  *client
}

// timerHeap is a binary min-heap of timers; each client has at most one,
// and knows its index so that it can be cancelled.
type timerHeap []timerEntry

// setTimer schedules (or reschedules) the client's timer.
func (t *thread) setTimer(c *client, at int64) {
	h := &t.timers
	if c.timer >= 0 {
		(*h)[c.timer].at = at
		h.fix(c.timer)
		return
	}
	c.timer = len(*h)
	*h = append(*h, timerEntry{at: at, c: c})
	h.up(c.timer)
}

// cancelTimer removes the client's timer, if any.
func (t *thread) cancelTimer(c *client) {
	h := &t.timers
	i := c.timer
	if i < 0 {
		return
	}
	last := len(*h) - 1
	h.swap(i, last)
	*h = (*h)[:last]
	c.timer = -1
	if i < last {
		h.fix(i)
	}
}

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].c.timer = i
	h[j].c.timer = j
}

func (h timerHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h timerHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].at <= h[i].at {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h timerHeap) down(i int) bool {
	start := i
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		m := l
		if r := l + 1; r < len(h) && h[r].at < h[l].at {
			m = r
		}
		if h[i].at <= h[m].at {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// countUnstarted adds to t.unstarted, once the thread's clients are done,
// the slots of its --rate schedule due by the -T end that no client took:
// the draws continue the thread's sequence from the last slot taken, as a
// client would have drawn them. A thread whose run was stopped early has
// no such count (run.merge leaves it out).
func (t *thread) countUnstarted() {
	if t.endTime <= 0 || t.throttleDelay <= 0 && t.ramp == nil || t.run.stopping() {
		return
	}
	for t.throttleTrigger <= t.endTime {
		if t.ramp == nil {
			t.throttleTrigger += t.throttleRand.Poisson(t.throttleDelay) * 1000
		} else {
			t.throttleTrigger = t.ramp.next(&t.throttleRand)
		}
		if t.throttleTrigger <= t.endTime {
			t.unstarted++
		}
	}
}
