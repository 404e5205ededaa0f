package runenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/result/schema"
)

// DefaultWaitInterval is the period of the wait-state reads unless one is
// given: ten reads a second cost a backend a query each, and a sample of
// a few seconds gets tens of them.
const DefaultWaitInterval = 100 * time.Millisecond

// waitQuery counts the client backends of the connection's database, but
// the sampler's own, by state and wait event.
const waitQuery = `SELECT coalesce(state, ''), coalesce(wait_event_type, ''), coalesce(wait_event, ''), count(*)
FROM pg_stat_activity
WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND datname = current_database()
GROUP BY 1, 2, 3`

// WaitSampler reads pg_stat_activity at a fixed interval on a connection
// of its own, from Start until Stop, and adds up the wait states it sees.
// The connection must serve nothing else meanwhile.
type WaitSampler struct {
	conn     *pgsql.Client
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}

	start   time.Time
	elapsed time.Duration
	counts  map[schema.WaitEvent]int64
	reads   int64
	queries int64
	pid     int
	cpu0    int64
	cpuNote string
	errs    []string
}

// StartWaits starts sampling on conn every interval (DefaultWaitInterval
// when 0). Its first read is at once.
func StartWaits(ctx context.Context, conn *pgsql.Client, interval time.Duration) (*WaitSampler, error) {
	if interval <= 0 {
		interval = DefaultWaitInterval
	}
	w := &WaitSampler{conn: conn, interval: interval, stop: make(chan struct{}), done: make(chan struct{}),
		counts: map[schema.WaitEvent]int64{}}
	rows, err := conn.QueryText(ctx, "SELECT pg_backend_pid()")
	if err != nil {
		return nil, fmt.Errorf("wait events: %w", err)
	}
	w.pid, _ = strconv.Atoi(rows[0][0])
	w.cpu0, err = backendCPU(w.pid)
	if err != nil {
		w.cpuNote = err.Error()
	}
	w.start = time.Now()
	go w.loop(ctx)
	return w, nil
}

func (w *WaitSampler) loop(ctx context.Context) {
	defer close(w.done)
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		w.read(ctx)
		select {
		case <-w.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// read reads pg_stat_activity once.
func (w *WaitSampler) read(ctx context.Context) {
	w.queries++
	rows, err := w.conn.QueryText(ctx, waitQuery)
	if err != nil {
		if len(w.errs) < 3 {
			w.errs = append(w.errs, err.Error())
		}
		return
	}
	w.reads++
	for _, r := range rows {
		n, _ := strconv.ParseInt(r[3], 10, 64)
		w.counts[schema.WaitEvent{State: r[0], Type: r[1], Event: r[2]}] += n
	}
}

// Stop ends the sampling and returns the profile, events by count,
// largest first.
func (w *WaitSampler) Stop() *schema.WaitEvents {
	close(w.stop)
	<-w.done
	w.elapsed = time.Since(w.start)
	out := &schema.WaitEvents{IntervalS: w.interval.Seconds(), Reads: w.reads, Events: []schema.WaitEvent{}}
	for e, n := range w.counts {
		e.Count = n
		out.Events = append(out.Events, e)
		out.BackendReads += n
	}
	sort.Slice(out.Events, func(i, j int) bool {
		a, b := out.Events[i], out.Events[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Name() < b.Name()
	})
	for i := range out.Events {
		out.Events[i].Share = float64(out.Events[i].Count) / float64(out.BackendReads)
	}
	out.Cost = schema.WaitCost{Queries: w.queries, QueriesPerS: float64(w.queries) / w.elapsed.Seconds()}
	if w.cpuNote == "" {
		if cpu1, err := backendCPU(w.pid); err == nil {
			s := float64(cpu1-w.cpu0) / 1e9
			out.Cost.BackendCPUS = &s
		} else {
			w.cpuNote = err.Error()
		}
	}
	out.Cost.BackendCPUNote = w.cpuNote
	if len(w.errs) > 0 {
		out.Note = fmt.Sprintf("%d of %d reads failed: %s", w.queries-w.reads, w.queries, strings.Join(w.errs, "; "))
	}
	return out
}

// backendCPU is the run time of the sampler's backend, from
// /proc/<pid>/schedstat (nanoseconds), when it is a PostgreSQL process
// of this machine.
func backendCPU(pid int) (int64, error) {
	comm, err := os.ReadFile(fmt.Sprintf("%s/%d/comm", procRoot, pid))
	if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
		return 0, errors.New("the sampler's backend is not a process of this machine")
	}
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/schedstat", procRoot, pid))
	if err != nil {
		return 0, fmt.Errorf("the sampler's backend's run time is unreadable: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("the sampler's backend's schedstat is empty")
	}
	return strconv.ParseInt(f[0], 10, 64)
}
