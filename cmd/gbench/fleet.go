package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/run/fleet"
)

// Environment variables a worker of a run over several machines reads
// when the options do not say (see run/fleet).
const (
	envWorkers     = fleet.EnvWorkers
	envWorkerIndex = fleet.EnvWorkerIndex
	envJobIndex    = fleet.EnvJobCompletion
	envRunID       = fleet.EnvRunID
	envStartAt     = fleet.EnvStartAt
)

// defaultStartTimeout bounds the wait for the other workers: long enough
// for pods to be scheduled and their images pulled.
const defaultStartTimeout = 300

// workerValue is --worker I/N: worker I (from 0) of N.
type workerValue struct{ o *options }

func (v *workerValue) Set(s string) error {
	i, n, ok := parseWorker(s)
	if !ok {
		return optErrf("invalid value \"%s\" for option --worker: expected I/N, worker I (from 0) of N workers, like 0/4", s)
	}
	v.o.workerIndex, v.o.workerCount = i, n
	return nil
}

func (v *workerValue) String() string {
	if v.o.workerCount == 0 {
		return ""
	}
	return strconv.Itoa(v.o.workerIndex) + "/" + strconv.Itoa(v.o.workerCount)
}
func (v *workerValue) Type() string { return "I/N" }

// parseWorker reads I/N with 0 <= I < N.
func parseWorker(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || n > maxInt || i < 0 || i >= n {
		return 0, 0, false
	}
	return i, n, true
}

// startAtValue is --start-at TIME: RFC 3339 or Unix seconds.
type startAtValue struct{ o *options }

func (v *startAtValue) Set(s string) error {
	t, ok := parseStartAt(s)
	if !ok {
		return optErrf("invalid value \"%s\" for option --start-at: expected an RFC 3339 time (2025-06-01T12:00:00Z) or Unix seconds (1748779200.5)", s)
	}
	v.o.startAt, v.o.startAtSet = t.UnixNano(), true
	return nil
}

func (v *startAtValue) String() string {
	if !v.o.startAtSet {
		return ""
	}
	return time.Unix(0, v.o.startAt).UTC().Format(time.RFC3339Nano)
}
func (v *startAtValue) Type() string { return "TIME" }

// parseStartAt reads RFC 3339 with optional fractions, or Unix seconds
// with an optional fraction, in the years 1970 to 2200.
func parseStartAt(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, t.Year() >= 1970 && t.Year() <= 2200
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.ContainsAny(s, "eEinfINFxXpP") || !(f >= 0 && f < 7258118400) {
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), true
}

// fleetEnv applies the environment's worker settings that no option gave.
func fleetEnv(env *Env, o *options) error {
	if o.workerCount == 0 {
		if s := env.Getenv(envWorkers); s != "" {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 {
				return usagef("invalid value \"%s\" of %s: expected the number of workers", s, envWorkers)
			}
			from, idx := envWorkerIndex, env.Getenv(envWorkerIndex)
			if idx == "" {
				from, idx = envJobIndex, env.Getenv(envJobIndex)
			}
			if idx == "" {
				return usagef("%s is %d but neither %s nor %s gives this worker's index", envWorkers, n, envWorkerIndex, envJobIndex)
			}
			i, err := strconv.Atoi(strings.TrimSpace(idx))
			if err != nil || i < 0 || i >= n {
				return usagef("invalid value \"%s\" of %s: expected a worker index from 0 to %d", idx, from, n-1)
			}
			o.workerIndex, o.workerCount = i, n
		}
	}
	if o.runID == "" {
		o.runID = env.Getenv(envRunID)
	}
	if !o.startAtSet {
		if s := env.Getenv(envStartAt); s != "" {
			t, ok := parseStartAt(s)
			if !ok {
				return usagef("invalid value \"%s\" of %s: expected an RFC 3339 time or Unix seconds", s, envStartAt)
			}
			o.startAt, o.startAtSet = t.UnixNano(), true
		}
	}
	return nil
}

// checkFleet refuses worker settings that cannot split the run exactly or
// start it together.
func checkFleet(o *options) error {
	n := o.workerCount
	if n <= 1 {
		return nil
	}
	switch {
	case o.clients < n:
		return usagef("%d clients (-c) cannot be split over %d workers: every worker needs a thread of its own, with a client", o.clients, n)
	case o.jobs < n:
		return usagef("%d workers need at least %d threads (-j): the run's threads are dealt to the workers, so that together they run what one gbench with the same options runs; got -j %d", n, n, o.jobs)
	case o.runID == "" && !o.startAtSet:
		return usagef("--worker %d/%d needs a way to start with the other workers: --run-id ID (or %s), the same for all, to meet them through the server, or --start-at TIME", o.workerIndex, n, envRunID)
	case len(o.runID) > 256:
		return usagef("--run-id is %d bytes long; at most 256", len(o.runID))
	}
	return nil
}

// fleetSetup is a worker's part in a run over several machines, or a run
// with a planned start.
type fleetSetup struct {
	shard   engine.Shard
	runID   string
	method  string // "postgres", "resp" or "start-at"
	startAt time.Time
	timeout time.Duration
	server  fleet.Server
	plan    fleet.Plan
}

// newFleet returns the run's fleet settings, nil for a run of its own.
func newFleet(o *options, b *benchSetup) *fleetSetup {
	if o.workerCount <= 1 && !o.startAtSet && o.runID == "" {
		return nil
	}
	f := &fleetSetup{shard: engine.Shard{Index: o.workerIndex, Count: max(o.workerCount, 1)}, runID: fleetRunID(o),
		timeout: time.Duration(o.startTimeout) * time.Second}
	switch {
	case o.startAtSet:
		f.method, f.startAt = "start-at", time.Unix(0, o.startAt).UTC()
	case b.cfg.Program.HasSQL:
		f.method, f.server = "postgres", b.pg.Rendezvous()
	default:
		f.method, f.server = "resp", resp.NewRendezvous(b.respOptions)
	}
	return f
}

// fleetRunID is the id of the run the process is part of: --run-id, or
// else "start-at" and the given start; "" for a run of its own.
func fleetRunID(o *options) string {
	if o.runID == "" && o.startAtSet {
		return "start-at " + time.Unix(0, o.startAt).UTC().Format(time.RFC3339Nano)
	}
	return o.runID
}

// start is the engine's Config.Start: it meets the other workers, or
// plans the given start.
func (f *fleetSetup) start(ctx context.Context) (engine.StartPlan, error) {
	if f.server == nil {
		f.plan = fleet.At(f.startAt)
	} else {
		p, err := fleet.Meet(ctx, f.server, fleet.Meeting{RunID: f.runID, Index: f.shard.Index, Count: f.shard.Count, Timeout: f.timeout})
		if err != nil {
			return engine.StartPlan{}, err
		}
		f.plan = p
	}
	return engine.StartPlan{At: f.plan.Local, Wall: f.plan.Start}, nil
}

// close ends the rendezvous, after the run.
func (f *fleetSetup) close(env *Env) {
	if f == nil || f.server == nil {
		return
	}
	if err := f.server.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: warning: closing the rendezvous: %v\n", err)
	}
}

// worker describes the worker's part for its JSON result.
func (f *fleetSetup) worker(cfg *engine.Config, res *engine.Result) *report.Worker {
	threads := min(max(cfg.Threads, 1), cfg.Clients)
	firstThread, _ := f.shard.Threads(threads)
	firstClient, _ := f.shard.Clients(cfg.Clients, threads)
	w := &report.Worker{
		RunID: f.runID, Index: f.shard.Index, Count: f.shard.Count,
		RunClients: cfg.Clients, RunThreads: threads, RunRate: cfg.Rate,
		FirstThread: firstThread, FirstClient: firstClient,
		Start: report.WorkerStart{
			Method: f.method, Planned: f.plan.Start, LeadS: f.plan.Lead.Seconds(), LateS: res.Late.Seconds(),
			LateBoundS: fleet.LateBound.Seconds(), Late: res.Late > fleet.LateBound,
		},
	}
	if f.server != nil {
		arrived := f.plan.Arrived
		off, e := f.plan.Offset.Seconds(), f.plan.Error.Seconds()
		w.Start.Arrived, w.Start.ClockOffsetS, w.Start.ClockErrorS = &arrived, &off, &e
	}
	return w
}

// report prints, after the summary, which part of the run this was and
// how it started.
func (f *fleetSetup) report(env *Env, cfg *engine.Config, res *engine.Result) {
	if f == nil {
		return
	}
	w := f.worker(cfg, res)
	fmt.Fprintf(env.Stderr, "gbench: worker %d of %d of run %q: threads %d..%d, clients %d..%d; planned start %s (%s, known %.3f ms before), began %.3f ms after it\n",
		w.Index, w.Count, w.RunID, w.FirstThread, w.FirstThread+res.Threads-1, w.FirstClient, w.FirstClient+res.Clients-1,
		w.Start.Planned.Format(time.RFC3339Nano), f.method, f.plan.Lead.Seconds()*1000, res.Late.Seconds()*1000)
	if w.Start.Late {
		fmt.Fprintf(env.Stderr, "gbench: warning: this worker began %.3f ms after the planned start, more than %.0f ms: its result says it was late\n",
			res.Late.Seconds()*1000, fleet.LateBound.Seconds()*1000)
	}
}
