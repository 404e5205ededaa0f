package report

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"
)

// Worker says which part of a run over several processes ("workers",
// gbench --worker I/N) a result is. Config holds the worker's share of the
// run: its clients, its threads and its part of the rate.
type Worker struct {
	// RunID names the run; every worker of the run has the same.
	RunID string `json:"run_id"`
	// Index is the worker's, from 0; Count the number of workers.
	Index int `json:"index"`
	Count int `json:"count"`
	// RunClients, RunThreads and RunRate are the whole run's -c, -j and
	// --rate.
	RunClients int     `json:"run_clients"`
	RunThreads int     `json:"run_threads"`
	RunRate    float64 `json:"run_rate_tps,omitempty"`
	// FirstThread and FirstClient are the global ids of the worker's first
	// thread and client; its ids follow on from them.
	FirstThread int `json:"first_thread"`
	FirstClient int `json:"first_client"`
	// Start is how the worker met the others and started.
	Start WorkerStart `json:"start"`
}

// WorkerStart is how a worker started.
type WorkerStart struct {
	// Method is "postgres" or "resp" (the workers met through that
	// server), or "start-at" (a wall-clock time they were given).
	Method string `json:"method"`
	// Planned is the common start on the run's timeline (the server's
	// clock after a rendezvous, the given time for start-at): the result's
	// start, the same for every worker.
	Planned time.Time `json:"planned"`
	// Arrived is when the worker had connected and reached the
	// rendezvous, on the same timeline (absent for start-at).
	Arrived *time.Time `json:"arrived,omitempty"`
	// LeadS is how long before Planned the worker knew it: negative when
	// the rendezvous itself ended after the start.
	LeadS float64 `json:"lead_s"`
	// LateS is how long after Planned the worker's threads began; Late is
	// set when that is more than LateBoundS.
	LateS      float64 `json:"late_s"`
	LateBoundS float64 `json:"late_bound_s"`
	Late       bool    `json:"late"`
	// ClockOffsetS is the server's clock minus the worker's, as measured at
	// the rendezvous, and ClockErrorS the bound of that measurement (half
	// the shortest round trip); absent for start-at.
	ClockOffsetS *float64 `json:"clock_offset_s,omitempty"`
	ClockErrorS  *float64 `json:"clock_error_s,omitempty"`
}

// Fleet is what a merge of workers' results says of the run they are
// parts of.
type Fleet struct {
	RunID string `json:"run_id"`
	// Workers is the number of workers of the run; Merged the indexes of
	// those merged, Missing of those not, Late of those that began later
	// than their bound after the start.
	Workers int   `json:"workers"`
	Merged  []int `json:"merged"`
	Missing []int `json:"missing"`
	Late    []int `json:"late"`
	// Start is the run's planned start.
	Start time.Time `json:"start"`
	// RunClients, RunThreads and RunRate are the whole run's -c, -j and
	// --rate.
	RunClients int     `json:"run_clients"`
	RunThreads int     `json:"run_threads"`
	RunRate    float64 `json:"run_rate_tps,omitempty"`
}

// shardOf describes the workers a result holds: its own, or a merge's.
type shardOf struct {
	runID                  string
	count                  int
	indexes                []int
	clients, threads       int
	rate                   float64
	start                  time.Time
	late                   []int
	isWorker, isFleetMerge bool
}

func shardInfo(r *Result) (shardOf, bool) {
	switch {
	case r.Worker != nil:
		w := r.Worker
		s := shardOf{runID: w.RunID, count: w.Count, indexes: []int{w.Index}, clients: w.RunClients,
			threads: w.RunThreads, rate: w.RunRate, start: w.Start.Planned, isWorker: true}
		if w.Start.Late {
			s.late = []int{w.Index}
		}
		return s, true
	case r.Fleet != nil:
		f := r.Fleet
		return shardOf{runID: f.RunID, count: f.Workers, indexes: f.Merged, clients: f.RunClients,
			threads: f.RunThreads, rate: f.RunRate, start: f.Start, late: f.Late, isFleetMerge: true}, true
	}
	return shardOf{}, false
}

// compatibleShards explains why b cannot be merged with a as parts of one
// run over several workers, or returns nil; seen maps each worker index
// already met to the input it came from.
func compatibleShards(a, b *Result, seen map[int]int, input int) error {
	sa, okA := shardInfo(a)
	sb, okB := shardInfo(b)
	switch {
	case okA != okB && okA:
		return errors.New("it is not a worker's result (gbench --worker), the others are")
	case okA != okB:
		return errors.New("it is a worker's result (gbench --worker), the others are not")
	case !okA:
		return nil
	case sa.runID != sb.runID:
		return fmt.Errorf("it is a worker of run %q, not of run %q", sb.runID, sa.runID)
	case sa.count != sb.count:
		return fmt.Errorf("its run has %d workers, not %d", sb.count, sa.count)
	case sa.clients != sb.clients || sa.threads != sb.threads || sa.rate != sb.rate:
		return fmt.Errorf("its run has -c %d -j %d --rate %v, not -c %d -j %d --rate %v",
			sb.clients, sb.threads, sb.rate, sa.clients, sa.threads, sa.rate)
	case !sa.start.Equal(sb.start):
		return fmt.Errorf("it started at %s, not at %s with the others", sb.start.Format(time.RFC3339Nano), sa.start.Format(time.RFC3339Nano))
	}
	if field := configDiff(&a.Config, &b.Config); field != "" {
		return fmt.Errorf("its %s differs from the others' (workers of one run have the same options)", field)
	}
	for _, k := range sb.indexes {
		if k < 0 || k >= sb.count {
			return fmt.Errorf("it holds worker %d of a run of %d workers", k, sb.count)
		}
		if prev, dup := seen[k]; dup {
			return fmt.Errorf("worker %d is also in input %d (the same part twice)", k, prev+1)
		}
		seen[k] = input
	}
	return nil
}

// configDiff names the first configuration field, other than a worker's
// share (clients, threads, rate), where a and b differ; "" when none.
func configDiff(a, b *Config) string {
	x, y := *a, *b
	x.Clients, x.Threads, x.Rate = 0, 0, 0
	y.Clients, y.Threads, y.Rate = 0, 0, 0
	vx, vy := reflect.ValueOf(x), reflect.ValueOf(y)
	for i := range vx.NumField() {
		if !reflect.DeepEqual(vx.Field(i).Interface(), vy.Field(i).Interface()) {
			tag := vx.Type().Field(i).Tag.Get("json")
			if j := len(tag); j > 0 {
				for k := range tag {
					if tag[k] == ',' {
						j = k
						break
					}
				}
				tag = tag[:j]
			}
			return "config." + tag
		}
	}
	return ""
}

// fleetOf is the Fleet of a merge of workers' results.
func fleetOf(in []*Result) *Fleet {
	s0, _ := shardInfo(in[0])
	f := &Fleet{RunID: s0.runID, Workers: s0.count, Start: s0.start, RunClients: s0.clients,
		RunThreads: s0.threads, RunRate: s0.rate, Merged: []int{}, Missing: []int{}, Late: []int{}}
	for _, r := range in {
		s, _ := shardInfo(r)
		f.Merged = append(f.Merged, s.indexes...)
		f.Late = append(f.Late, s.late...)
	}
	slices.Sort(f.Merged)
	slices.Sort(f.Late)
	for k := range f.Workers {
		if _, found := slices.BinarySearch(f.Merged, k); !found {
			f.Missing = append(f.Missing, k)
		}
	}
	return f
}

// Warnings says what a merge of workers lacks: missing workers, late ones.
func (f *Fleet) Warnings() []string {
	var out []string
	if len(f.Missing) > 0 {
		out = append(out, fmt.Sprintf("workers %s of %d are missing: the figures cover %d of the run's %d workers, not the whole run",
			intList(f.Missing), f.Workers, len(f.Merged), f.Workers))
	}
	if len(f.Late) > 0 {
		out = append(out, fmt.Sprintf("workers %s started late (see parts[].worker.start): their first transactions show it as schedule lag and latency",
			intList(f.Late)))
	}
	return out
}

func intList(xs []int) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(x)
	}
	return s
}
