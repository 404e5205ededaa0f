package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/runenv"
	"github.com/spf13/pflag"
)

// Bounds of --wait-events' interval: a read more often than every 10 ms
// would cost the server a backend busy with little else; one a minute
// would see nothing of a short run.
const (
	minWaitInterval = 10 * time.Millisecond
	maxWaitInterval = time.Minute
)

// defineWaitFlag declares --wait-events[=INTERVAL].
func defineWaitFlag(fs *pflag.FlagSet, o *options) {
	fs.Var(&waitIntervalValue{&o.waitEvents}, "wait-events", "sample PostgreSQL's wait states (pg_stat_activity) every INTERVAL\non a connection of its own (bare: "+runenv.DefaultWaitInterval.String()+")")
	f := fs.Lookup("wait-events")
	f.NoOptDefVal = runenv.DefaultWaitInterval.String()
	f.Annotations = map[string][]string{optionalArgKey: nil}
}

// waitIntervalValue is --wait-events' interval: a Go duration ("100ms").
type waitIntervalValue struct{ p *time.Duration }

func (v *waitIntervalValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return optErrf("invalid value \"%s\" for option --wait-events: expected an interval like 100ms or 1s", s)
	}
	if d < minWaitInterval || d > maxWaitInterval {
		return optErrf("--wait-events must be in range %v..%v", minWaitInterval, maxWaitInterval)
	}
	*v.p = d
	return nil
}

func (v *waitIntervalValue) String() string { return "" }
func (v *waitIntervalValue) Type() string   { return "INTERVAL" }

// startWaits opens the sampler's connection and starts it; the returned
// function stops it and keeps the profile in b.waitEvents (or the reason
// in b.waitEventsNote). It never fails the run.
func (b *benchSetup) startWaits(ctx context.Context, interval time.Duration) func() {
	if interval <= 0 || b.pg == nil {
		return func() {}
	}
	conn, err := b.pg.Open(ctx)
	if err == nil {
		if err = conn.Exec(ctx, "SET application_name = 'gbench-waits'"); err != nil {
			conn.Close()
		}
	}
	var w *runenv.WaitSampler
	if err == nil {
		if w, err = runenv.StartWaits(ctx, conn, interval); err != nil {
			conn.Close()
		}
	}
	if err != nil {
		b.waitEventsNote = "the wait-state sampler could not start: " + err.Error()
		return func() {}
	}
	return func() {
		b.waitEvents = w.Stop()
		conn.Close()
	}
}

// maxWaitLines is how many wait events the summary lists.
const maxWaitLines = 10

// writeWaits prints the profile after pgbench's summary.
func writeWaits(w io.Writer, p *schema.WaitEvents, note string) {
	if p == nil {
		if note != "" {
			fmt.Fprintf(w, "wait events: not sampled: %s\n", note)
		}
		return
	}
	cost := fmt.Sprintf("%d queries, %.1f/s", p.Cost.Queries, p.Cost.QueriesPerS)
	if p.Cost.BackendCPUS != nil {
		cost += fmt.Sprintf(", %.3f s of its backend's CPU", *p.Cost.BackendCPUS)
	}
	fmt.Fprintf(w, "wait events: %d reads of pg_stat_activity every %v, %d backend states (sampler's cost: %s)\n",
		p.Reads, time.Duration(p.IntervalS*float64(time.Second)), p.BackendReads, cost)
	for i, e := range p.Events {
		if i == maxWaitLines {
			fmt.Fprintf(w, " - %d more in the JSON result\n", len(p.Events)-i)
			break
		}
		fmt.Fprintf(w, " - %s: %.1f%%\n", e.Name(), e.Share*100)
	}
	if p.Note != "" {
		fmt.Fprintf(w, "wait events: %s\n", p.Note)
	}
}
