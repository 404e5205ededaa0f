package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Environment variables a worker reads when its options do not say:
// Kubernetes sets JobCompletionIndex in each pod of an Indexed Job; the
// manifests in deploy/kubernetes set the others. EnvWorkers alone turns
// sharding on.
const (
	EnvWorkers         = "GBENCH_WORKERS"      // the number of workers
	EnvWorkerIndex     = "GBENCH_WORKER_INDEX" // the worker's index, from 0
	EnvJobCompletion   = "JOB_COMPLETION_INDEX"
	EnvRunID           = "GBENCH_RUN_ID"
	EnvStartAt         = "GBENCH_START_AT"
	DefaultMetricsPort = 9090 // the port the manifests serve --metrics-addr on
)

// Timing of a meeting, and the bound past which a worker is late.
const (
	// Margin is the time from the last worker's arrival to the start
	// (before rounding up to a whole second): every worker polls several
	// times within it, so each learns the start before it comes.
	Margin = time.Second
	// Poll is how often a waiting worker asks the server who has arrived.
	Poll = 20 * time.Millisecond
	// LateBound is how long after the start a worker may begin before its
	// result says it was late: a tenth of the shortest -P interval, so the
	// intervals of the workers still cover the same second to within 10%;
	// a machine that cannot wake a process that soon is overloaded, and
	// the figures must say so.
	LateBound = 100 * time.Millisecond
)

// Server is what workers meet through: a place where each posts its
// arrival, stamped by the server's clock, and a reading of that clock. A
// Server is one connection to the server under test; it is used by one
// worker, from one goroutine.
type Server interface {
	// Arrive posts worker index's arrival for the run key; fresh is false
	// when that worker has arrived already (another process with the same
	// index, or a restarted one).
	Arrive(ctx context.Context, key string, index int) (fresh bool, err error)
	// Arrivals returns the workers arrived for key, by index, with the
	// server's time of each arrival, and the server's clock now.
	Arrivals(ctx context.Context, key string) (map[int]time.Time, time.Time, error)
	// Close withdraws the worker's arrival, where the server keeps it, and
	// closes the connection. Call it after the run.
	Close() error
}

// Meeting is what a worker knows of the run it meets the others for.
type Meeting struct {
	RunID        string
	Index, Count int
	// Timeout bounds the wait for the others.
	Timeout time.Duration
}

// Plan is when a worker starts.
type Plan struct {
	// Start is the common start on the run's timeline: the server's clock
	// for a meeting, the given time for At.
	Start time.Time
	// Local is the same instant on this process's clock, with a monotonic
	// reading.
	Local time.Time
	// Arrived is when this worker arrived, on the timeline; zero for At.
	Arrived time.Time
	// Offset is the server's clock minus this machine's, and Error the
	// bound of that measurement (half the shortest round trip); both are
	// zero for At, which trusts this machine's clock.
	Offset, Error time.Duration
	// Lead is how long before the start the worker knew it: negative when
	// the meeting itself ended after the start (a slow server), which then
	// makes the worker late.
	Lead time.Duration
}

// Key is the short name of a run on the server: a hash of its id, so that
// any id fits wherever the server stores it.
func Key(runID string) string {
	h := sha256.Sum256([]byte(runID))
	return hex.EncodeToString(h[:8])
}

// At is the plan of a worker given a wall-clock start: the start is t on
// this machine's clock.
func At(t time.Time) Plan {
	now := time.Now()
	return Plan{Start: t.Round(0), Local: now.Add(t.Sub(now)), Lead: t.Sub(now)}
}

// Meet posts the worker's arrival on s and waits for the others, at most
// m.Timeout, then returns the common start. An error means the run cannot
// start together: a worker index already there, a worker of another run
// under the same id, the others missing at the timeout, or ctx ended.
func Meet(ctx context.Context, s Server, m Meeting) (Plan, error) {
	key := Key(m.RunID)
	fresh, err := s.Arrive(ctx, key, m.Index)
	if err != nil {
		return Plan{}, fmt.Errorf("rendezvous: posting worker %d's arrival: %w", m.Index, err)
	}
	if !fresh {
		return Plan{}, fmt.Errorf("rendezvous: worker %d of run %q has arrived already: two workers were given the same index, or a worker was restarted after the run began (use a new run id)", m.Index, m.RunID)
	}
	deadline := time.Now().Add(m.Timeout)
	var c clock
	for {
		arr, err := c.read(ctx, s, key)
		if err != nil {
			return Plan{}, err
		}
		done, err := complete(arr, m)
		if err != nil {
			return Plan{}, err
		}
		if done {
			return c.plan(ctx, s, key, arr, m.Index)
		}
		if time.Now().After(deadline) {
			return Plan{}, fmt.Errorf("rendezvous: timed out after %v waiting for workers %s of run %q (arrived: %s)",
				m.Timeout, list(missing(arr, m.Count)), m.RunID, list(sortedKeys(arr)))
		}
		if err := sleep(ctx, Poll); err != nil {
			return Plan{}, fmt.Errorf("rendezvous: interrupted while waiting for workers %s: %w", list(missing(arr, m.Count)), err)
		}
	}
}

// complete reports whether every worker of the meeting has arrived, and
// refuses arrivals that cannot be this run's.
func complete(arr map[int]time.Time, m Meeting) (bool, error) {
	for k := range arr {
		if k < 0 || k >= m.Count {
			return false, fmt.Errorf("rendezvous: worker %d arrived for run %q, which has %d workers: another run uses the same id with more workers", k, m.RunID, m.Count)
		}
	}
	return len(arr) == m.Count, nil
}

// clock estimates the server's clock against this machine's from the
// readings taken while waiting: the reading with the shortest round trip
// wins, its error being half that round trip.
type clock struct {
	offset, err time.Duration
	n           int
}

// read asks for the arrivals and takes the clock reading that comes with
// them.
func (c *clock) read(ctx context.Context, s Server, key string) (map[int]time.Time, error) {
	t0 := time.Now()
	arr, now, err := s.Arrivals(ctx, key)
	t1 := time.Now()
	if err != nil {
		return nil, fmt.Errorf("rendezvous: reading the arrivals: %w", err)
	}
	rtt := t1.Sub(t0)
	if c.n == 0 || rtt/2 < c.err {
		c.offset, c.err = now.Sub(t0.Add(rtt/2)), rtt/2
	}
	c.n++
	return arr, nil
}

// clockReadings is how many readings a plan's clock estimate takes at
// least: a few quick ones after the meeting, for a worker that found
// everyone there at once.
const clockReadings = 5

// plan computes the common start once everyone has arrived.
func (c *clock) plan(ctx context.Context, s Server, key string, arr map[int]time.Time, index int) (Plan, error) {
	for c.n < clockReadings {
		if _, err := c.read(ctx, s, key); err != nil {
			return Plan{}, err
		}
	}
	var last time.Time
	for _, t := range arr {
		if t.After(last) {
			last = t
		}
	}
	start := ceilSecond(last.Add(Margin))
	now := time.Now()
	local := now.Add(start.Sub(now.Add(c.offset)))
	return Plan{
		Start: start, Local: local, Arrived: arr[index],
		Offset: c.offset, Error: c.err, Lead: local.Sub(now),
	}, nil
}

// ceilSecond rounds t up to a whole second.
func ceilSecond(t time.Time) time.Time {
	if s := t.Truncate(time.Second); !s.Equal(t) {
		return s.Add(time.Second)
	}
	return t
}

func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func missing(arr map[int]time.Time, n int) []int {
	var out []int
	for k := range n {
		if _, ok := arr[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func sortedKeys(arr map[int]time.Time) []int {
	var out []int
	for k := range arr {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func list(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
