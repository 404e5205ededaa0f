package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/result/gate"
	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
)

// defineGateFlags declares --threshold and --threshold-abort.
func defineGateFlags(fs *pflag.FlagSet, o *options) {
	fs.StringArrayVar(&o.thresholds, "threshold", nil, "fail the run (exit status 3) unless it meets every term of\nLIST, like \"p99<=5ms,avg<=2ms,failures<=0.1%,tps>=1000\"\n(also stddev, lag under --rate; failures<=N without %: a count);\n\"SCRIPT:TERM\" for one script (repeatable)")
	o.thresholdAbort = -1
	fs.Var(&graceValue{&o.thresholdAbort}, "threshold-abort", "stop the run at the first breach of a threshold, checked\nevery second (or -P) on the figures so far, after GRACE\nseconds (default: 0)")
	f := fs.Lookup("threshold-abort")
	f.NoOptDefVal = "0"
	f.Annotations = map[string][]string{optionalArgKey: nil}
}

// graceValue is --threshold-abort's grace period in seconds.
type graceValue struct{ p *float64 }

func (v *graceValue) String() string { return "" }
func (v *graceValue) Type() string   { return "seconds" }
func (v *graceValue) Set(s string) error {
	g, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(g >= 0 && g < 1e9) {
		return usagef("invalid value \"%s\" for option --threshold-abort: expected seconds of grace, 0 or more", s)
	}
	*v.p = g
	return nil
}

// gates are a run's thresholds and what became of them.
type gates struct {
	list []gate.Threshold
	// grace is --threshold-abort's (-1 without it); cancel stops the run.
	grace  float64
	cancel context.CancelFunc
	mu     sync.Mutex
	stop   *report.GateStop // set when --threshold-abort stopped the run
	result *report.Gates
}

// parseGates reads the --threshold options and checks that the scripts
// they name are the program's; nil without thresholds.
func parseGates(o *options, prog *script.Program) (*gates, error) {
	if len(o.thresholds) == 0 {
		if o.thresholdAbort >= 0 {
			return nil, usagef("--threshold-abort needs a --threshold")
		}
		return nil, nil
	}
	g := &gates{grace: o.thresholdAbort}
	for _, s := range o.thresholds {
		ts, err := gate.Parse(s)
		if err != nil {
			return nil, usagef("%v", err)
		}
		g.list = append(g.list, ts...)
	}
	if err := checkGateScripts(g.list, report.ScriptFigures(prog)); err != nil {
		return nil, err
	}
	return g, nil
}

// checkGateScripts checks that each threshold's script is one of scripts.
func checkGateScripts(ts []gate.Threshold, scripts []gate.Figures) error {
	for _, t := range ts {
		if t.Script == "" {
			continue
		}
		if _, err := gate.FindScript(t.Script, scripts); err != nil {
			return usagef("invalid threshold %q: %v", t.String(), err)
		}
	}
	return nil
}

// withAbort returns the run's context, cancelled by a breach under
// --threshold-abort, and the progress hook that checks for one.
func (g *gates) withAbort(ctx context.Context) context.Context {
	if g == nil || g.grace < 0 {
		return ctx
	}
	ctx, g.cancel = context.WithCancel(ctx)
	return ctx
}

// onProgress checks the figures so far at a -P (or one-second) tick;
// after the grace period, the first breach stops the run.
func (g *gates) onProgress(cfg *report.RunConfig, p engine.Progress) {
	if g.cancel == nil || p.Elapsed.Seconds() < g.grace {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stop != nil {
		return
	}
	s := &report.Summary{Config: cfg, Result: &report.RunResult{Stats: p.Total, Bench: p.Elapsed}}
	vs := report.CheckThresholds(s, g.list)
	if !gate.Breached(vs) {
		return
	}
	g.stop = &report.GateStop{AtS: p.Elapsed.Seconds(), Verdicts: vs}
	g.cancel()
}

// stopped returns the breach that stopped the run, nil when none did.
func (g *gates) stopped() *report.GateStop {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stop
}

// check checks the thresholds against the finished run, writes the
// verdicts after the summary and returns the exit status they give.
func (g *gates) check(env *Env, s *report.Summary) int {
	if g == nil {
		return exitOK
	}
	g.result = report.NewGates(report.CheckThresholds(s, g.list), exitThreshold)
	g.result.Stop = g.stopped()
	return g.write(env, g.result)
}

// write prints the verdicts and, for a stopped run, when it stopped.
func (g *gates) write(env *Env, r *report.Gates) int {
	if err := report.WriteThresholds(env.Stdout, r.Verdicts); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: writing the summary: %v\n", err)
		return exitRun
	}
	if st := r.Stop; st != nil {
		var breached []string
		for _, v := range st.Verdicts {
			if !v.Met {
				breached = append(breached, v.Threshold+" ("+v.Display+")")
			}
		}
		fmt.Fprintf(env.Stderr, "gbench: the run was stopped after %.1f s (--threshold-abort): threshold breached: %s\n", st.AtS, strings.Join(breached, ", "))
	}
	return r.ExitStatus
}
