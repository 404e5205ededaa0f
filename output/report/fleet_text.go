package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
)

// MergeSummary writes the summary of a merge: for a merge of workers'
// results (Fleet), pgbench's summary of the whole run as one run prints it
// (FleetText); for other merges the short MergeText.
func MergeSummary(w io.Writer, r *Result) error {
	if r.Fleet == nil {
		return MergeText(w, r)
	}
	return FleetText(w, r)
}

// FleetText writes the summary of a run over several workers from the
// merge of their results: pgbench's summary, line for line as one run with
// the same options prints it, with gbench's percentiles; then which
// workers are merged, missing and late, and how far apart they started;
// then the merged -P intervals as pgbench's progress lines, an interval
// that not every worker covers marked so.
func FleetText(out io.Writer, r *Result) error {
	s, err := SummaryOf(r)
	if err != nil {
		return err
	}
	if err := Text(out, s); err != nil {
		return err
	}
	w := &writer{w: out}
	writeFleet(w, r)
	if w.err == nil && len(r.Intervals) > 0 {
		w.err = writeIntervals(out, s, r)
	}
	return w.err
}

// writeFleet prints the workers' lines.
func writeFleet(w *writer, r *Result) {
	f := r.Fleet
	w.printf("run id: %s\n", f.RunID)
	w.printf("workers merged: %d of %d (%s)\n", len(f.Merged), f.Workers, intList(f.Merged))
	if len(f.Missing) > 0 {
		w.printf("workers missing: %s: the figures above are theirs only, not the whole run's\n", intList(f.Missing))
	}
	w.printf("planned start: %s\n", f.Start.Format(time.RFC3339Nano))
	lo, hi, bound, ok := startSpread(r)
	if ok {
		w.printf("workers started from %.3f to %.3f ms after it\n", lo*1000, hi*1000)
	}
	if len(f.Late) > 0 {
		w.printf("workers late: %s (began more than %.0f ms after the start)\n", intList(f.Late), bound*1000)
	}
	for _, warn := range r.Warnings {
		w.printf("warning: %s\n", warn)
	}
}

// startSpread returns the earliest and latest lateness of the workers
// merged, and the largest bound they were held to.
func startSpread(r *Result) (lo, hi, bound float64, ok bool) {
	for _, p := range r.Parts {
		if p.Worker == nil {
			continue
		}
		l := p.Worker.Start.LateS
		if !ok || l < lo {
			lo = l
		}
		if !ok || l > hi {
			hi = l
		}
		bound = max(bound, p.Worker.Start.LateBoundS)
		ok = true
	}
	return lo, hi, bound, ok
}

// writeIntervals prints the merged intervals as -P lines, labelled with
// their boundary's time since the start.
func writeIntervals(out io.Writer, s *Summary, r *Result) error {
	if _, err := fmt.Fprintf(out, "intervals, merged:\n"); err != nil {
		return err
	}
	for i := range r.Intervals {
		in := &r.Intervals[i]
		t, err := txnOf(&in.Counters, &in.Latency, in.Lag)
		if err != nil {
			return fmt.Errorf("intervals[%d].latency: %w", i, err)
		}
		elapsed := seconds(in.ElapsedS)
		if r.Config.ProgressS > 0 {
			elapsed = seconds(float64(in.Index) * r.Config.ProgressS) // the boundary, the same for all workers
		}
		p := engine.Progress{Index: in.Index, Elapsed: elapsed, Interval: seconds(in.LengthS), Wall: in.End, Txn: t}
		var line bytes.Buffer
		if err := ProgressLine(&line, s.Config, p, false, s.Percentiles); err != nil {
			return err
		}
		text := strings.TrimSuffix(line.String(), "\n")
		if in.Runs < r.Runs {
			text += fmt.Sprintf(" (%d of %d workers)", in.Runs, r.Runs)
		}
		if _, err := fmt.Fprintln(out, text); err != nil {
			return err
		}
	}
	return nil
}
