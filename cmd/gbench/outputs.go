package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/output/report"
)

// outputs are a run's outputs besides the summary: -P lines, -l logs, the
// -P interval series and HdrHistogram log fed during the run, and the JSON
// result written after it.
type outputs struct {
	env       *Env
	jsonPath  string
	hdrPath   string
	intervals *report.Intervals // nil without --json

	// Written by the progress goroutine, read after the run.
	hdrFile   *os.File
	hdr       *report.HdrLog
	hdrFailed bool
	errs      []error
}

// setOutputs wires -P progress lines, -l logs, the interval series of
// --json and the --hdr-log intervals into the engine configuration.
func (b *benchSetup) setOutputs(env *Env, o *options) {
	cfg := b.cfg
	run := report.RunConfigOf(cfg) // what the -P lines, the logs and the gates read of cfg
	out := &outputs{env: env, jsonPath: o.jsonOut, hdrPath: o.hdrLog}
	b.out = out
	if o.log {
		cfg.Log = &report.LogFiles{
			Prefix: o.logPrefix, PID: os.Getpid(),
			Options:   report.LogOptionsFor(run, o.failuresDetailed),
			Aggregate: time.Duration(o.aggInterval) * time.Second,
		}
	}
	if out.jsonPath != "" {
		out.intervals = &report.Intervals{Percentiles: b.percentiles, Lag: cfg.Rate > 0}
	}
	var each []func(engine.Progress)
	if o.progress > 0 {
		ts, pct := o.progressTimestamp, b.percentiles
		if g := o.group; g != nil {
			each = append(each, func(p engine.Progress) {
				g.progress(run, p, ts, pct)
				out.progressSeries(p)
			})
		} else {
			each = append(each, func(p engine.Progress) {
				if err := report.ProgressLine(env.Stderr, run, p, ts, pct); err != nil {
					fmt.Fprintf(env.Stderr, "gbench: error: writing progress: %v\n", err)
				}
				out.progressSeries(p)
			})
		}
	}
	if out.hdrPath != "" {
		each = append(each, func(p engine.Progress) {
			out.hdrInterval(p.Wall.Add(-p.Elapsed), p.Wall.Add(-p.Interval), p.Wall, p.Txn.Hist)
		})
	}
	if b.metrics != nil {
		each = append(each, b.metrics.Update)
	}
	if g := b.gates; g != nil && g.grace >= 0 {
		each = append(each, func(p engine.Progress) { g.onProgress(run, p) })
	}
	if len(each) > 0 {
		if o.progress == 0 {
			cfg.Tick = time.Second // --hdr-log intervals, metrics and --threshold-abort without -P lines
		}
		cfg.OnProgress = func(p engine.Progress) {
			for _, f := range each {
				f(p)
			}
		}
	}
}

// progressSeries adds one -P interval to the JSON interval series; errors
// are kept for the end of the run.
func (out *outputs) progressSeries(p engine.Progress) {
	if out.intervals != nil {
		if err := out.intervals.Add(p); err != nil {
			out.errs = append(out.errs, fmt.Errorf("--json: %w", err))
		}
	}
}

// hdrInterval writes one interval to the --hdr-log file, creating it on
// first use (so that a run that never starts leaves no file behind) with
// start as the log's start time. After an error it writes no more.
func (out *outputs) hdrInterval(start, from, to time.Time, h *stats.Hist) {
	if out.hdrPath == "" || out.hdrFailed {
		return
	}
	err := out.openHdr(start)
	if err == nil {
		err = out.hdr.Interval(from, to, h)
	}
	if err != nil {
		out.errs = append(out.errs, fmt.Errorf("--hdr-log: %w", err))
		out.hdrFailed = true
	}
}

func (out *outputs) openHdr(start time.Time) error {
	if out.hdr != nil {
		return nil
	}
	f, err := createFile(out.hdrPath)
	if err != nil {
		return err
	}
	out.hdrFile = f
	out.hdr, err = report.NewHdrLog(f, start)
	return err
}

// createFile creates or truncates a file, with pgbench's wording on
// failure.
func createFile(path string) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("could not open file \"%s\": %v", path, unwrapPathError(err))
	}
	return f, nil
}

// readFile opens name and decodes it with read, naming the file in errors.
func readFile[T any](name string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(name)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("could not open file \"%s\": %v", name, unwrapPathError(err))
	}
	defer f.Close()
	r, err := read(f)
	if err != nil {
		return r, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// writeTo writes with write to standard output when path is "-", otherwise
// to the file path.
func writeTo(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	return writeFile(path, write)
}

// writeFile creates path and fills it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := createFile(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeOutputs finishes the HdrHistogram log and writes the JSON result,
// after the summary. It returns every output error, joined.
func (b *benchSetup) writeOutputs(res *engine.Result) error {
	out := b.out
	if out == nil {
		return nil
	}
	b.out = nil
	out.finishHdr(res)
	if out.jsonPath != "" {
		if err := b.writeJSON(out, res); err != nil {
			out.errs = append(out.errs, fmt.Errorf("--json: %w", err))
		}
	}
	return errors.Join(out.errs...)
}

// finishHdr completes the HdrHistogram log with what the -P intervals did
// not cover (the end of the run after the last report, or without -P the
// whole run), so that its intervals add up to the run, and closes it.
func (out *outputs) finishHdr(res *engine.Result) {
	if out.hdrPath == "" || out.hdrFailed {
		out.closeHdr()
		return
	}
	err := out.openHdr(res.Start)
	if err == nil {
		err = out.hdr.Rest(res.Start.Add(res.Bench), res.Stats.Total.Hist)
	}
	if err != nil {
		out.errs = append(out.errs, fmt.Errorf("--hdr-log: %w", err))
	}
	out.closeHdr()
}

func (out *outputs) closeHdr() {
	if out.hdrFile == nil {
		return
	}
	if err := out.hdrFile.Close(); err != nil {
		out.errs = append(out.errs, fmt.Errorf("--hdr-log: %w", err))
	}
}

// writeJSON writes the result to --json's file, or standard output for "-".
func (b *benchSetup) writeJSON(out *outputs, res *engine.Result) error {
	v := report.Versions{Gbench: version, Server: b.serverVersion,
		Transport: b.cfg.Transport.String(), TransportNote: b.transportNote}
	var intervals []report.Interval
	if out.intervals != nil {
		intervals = out.intervals.List()
	}
	r, err := report.NewResult(&b.summary, v, intervals)
	if err != nil {
		return err
	}
	r.Context, r.Activity = b.runCtx, b.activity
	r.WaitEvents, r.WaitEventsNote = b.waitEvents, b.waitEventsNote
	if b.gates != nil {
		r.Thresholds = b.gates.result
	}
	r.Warmup = b.warmup
	r.Warnings = b.activity.Warnings()
	if b.group != nil {
		b.group.result = r // written with the other groups' (finishGroups)
		return nil
	}
	if f := b.fleet; f != nil {
		r.Worker = f.worker(b.cfg, res)
		r.Config.Rate = b.cfg.Rate * float64(res.Threads) / float64(r.Worker.RunThreads)
		if r.Worker.Start.Late {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the worker began %.3f ms after the planned start, more than %.0f ms", r.Worker.Start.LateS*1000, r.Worker.Start.LateBoundS*1000))
		}
	}
	return writeTo(out.env.Stdout, out.jsonPath, r.Write)
}
