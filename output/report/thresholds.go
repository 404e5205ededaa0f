package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/result/gate"
	"github.com/gbench/gbench/script"
)

// ScriptNames are the names script i (from 0) of a run answers to in a
// threshold ("read:p99<=2ms"), the first being the one to show: its name
// as the summary shows it (the file as given, or "<builtin: select
// only>"); its number from 1, as in pgbench's "SQL script 1"; for a file,
// its base name with and without the extension ("read.sql", "read"); for
// a builtin, its -b name ("select-only").
func ScriptNames(i int, name string) []string {
	names := []string{name, strconv.Itoa(i + 1)}
	for _, b := range script.Builtins {
		if b.Desc == name {
			return append(names, b.Name)
		}
	}
	base := filepath.Base(name)
	return append(names, base, strings.TrimSuffix(base, filepath.Ext(base)))
}

// ScriptFigures are the names of a program's scripts for
// gate.FindScript, without figures: for checking thresholds before a run.
func ScriptFigures(p *script.Program) []gate.Figures {
	out := make([]gate.Figures, len(p.Scripts))
	for i, sc := range p.Scripts {
		out[i].Names = ScriptNames(i, sc.Name)
	}
	return out
}

// CheckThresholds checks thresholds against the run a summary describes.
// The thresholds' scripts must have been found with gate.FindScript.
func CheckThresholds(s *Summary, ts []gate.Threshold) []gate.Verdict {
	total, scripts := summaryFigures(s)
	return gate.Check(ts, total, scripts)
}

// CheckResult checks thresholds against a result, a run's or a merge's,
// with the result's throughput: for a merge of separate runs, the sum of
// theirs, as its summary says.
func CheckResult(r *Result, ts []gate.Threshold) ([]gate.Verdict, error) {
	s, err := SummaryOf(r)
	if err != nil {
		return nil, err
	}
	total, scripts := summaryFigures(s)
	total.TPS = r.TPS
	for i := range scripts {
		if i < len(r.Scripts) {
			scripts[i].TPS = r.Scripts[i].TPS
		}
	}
	return gate.Check(ts, total, scripts), nil
}

// summaryFigures are the figures of a summary's run and of its scripts.
func summaryFigures(s *Summary) (gate.Figures, []gate.Figures) {
	secs := s.Result.Bench.Seconds()
	total := figuresOf(s.Result.Stats.Total, secs)
	var scripts []gate.Figures
	for i, sc := range s.Config.Program.Scripts {
		t := s.Result.Stats.Total
		if len(s.Result.Stats.Scripts) > 1 {
			t = s.Result.Stats.Scripts[i]
		}
		f := figuresOf(t, secs)
		f.Names = ScriptNames(i, sc.Name)
		scripts = append(scripts, f)
	}
	if s.Config.Rate <= 0 {
		// A closed loop records a lag of 0 per transaction: it has none.
		none := func() (float64, bool) { return 0, false }
		total.Lag = none
		for i := range scripts {
			scripts[i].Lag = none
		}
	}
	return total, scripts
}

// figuresOf are one transaction statistic's figures over secs seconds.
func figuresOf(t *stats.Txn, secs float64) gate.Figures {
	f := gate.Figures{TPS: float64(t.Cnt) / secs, Latency: func(q float64) (float64, bool) {
		if t.Hist.Count() == 0 {
			return 0, false
		}
		if q == 100 {
			return float64(t.Hist.Max()), true
		}
		return float64(t.Hist.Quantile(q)), true
	}}
	f.Mean = func() (float64, bool) { return t.Latency.Mean(), t.Latency.Count > 0 }
	f.Stddev = func() (float64, bool) { return t.Latency.Stddev(), t.Latency.Count > 0 }
	f.Lag = func() (float64, bool) { return t.Lag.Mean(), t.Lag.Count > 0 }
	f.Failed = float64(t.Failures() + t.Skipped)
	if n := t.Total(); n > 0 {
		f.Failures = f.Failed / float64(n)
	}
	return f
}

// WriteThresholds writes the verdicts after pgbench's summary: a line
// saying how many thresholds were breached, then one line per threshold
// with the figure measured.
func WriteThresholds(out io.Writer, vs []gate.Verdict) error {
	w := &writer{w: out}
	breached := 0
	for _, v := range vs {
		if !v.Met {
			breached++
		}
	}
	w.printf("thresholds: %d of %d breached\n", breached, len(vs))
	if w.err != nil {
		return w.err
	}
	return WriteThresholdLines(out, vs)
}

// WriteThresholdLines writes one line per verdict: " - TERM: VALUE (met)"
// or "(BREACHED)".
func WriteThresholdLines(out io.Writer, vs []gate.Verdict) error {
	w := &writer{w: out}
	for _, v := range vs {
		verdict := "met"
		if !v.Met {
			verdict = "BREACHED"
		}
		line := " - " + v.Threshold + ": " + v.Display + " (" + verdict
		if v.Note != "" {
			line += ": " + v.Note
		}
		w.printf("%s)\n", line)
	}
	return w.err
}

// Gates is what the thresholds of a run made of it, in the JSON result.
type Gates struct {
	Verdicts []gate.Verdict `json:"verdicts"`
	Breached bool           `json:"breached"`
	// ExitStatus is the status the thresholds give: 0 when all are met,
	// gbench's threshold status (3) when one is breached. A run that
	// failed otherwise exits with 1 or 2 all the same.
	ExitStatus int `json:"exit_status"`
	// Stop is set when --threshold-abort stopped the run at a breach.
	Stop *GateStop `json:"stop,omitempty"`
}

// GateStop is the breach at which --threshold-abort stopped a run: when,
// and the verdicts on the figures up to then.
type GateStop struct {
	AtS      float64        `json:"at_s"`
	Verdicts []gate.Verdict `json:"verdicts"`
}

// NewGates records verdicts; breachStatus is the exit status of a breach.
func NewGates(vs []gate.Verdict, breachStatus int) *Gates {
	g := &Gates{Verdicts: vs, Breached: gate.Breached(vs)}
	if g.Breached {
		g.ExitStatus = breachStatus
	}
	return g
}

// Warmup is what --warmup ran before the measurement, whose figures it
// discarded.
type Warmup struct {
	Seconds      float64 `json:"seconds"`
	Transactions int64   `json:"transactions"`
	Failed       int64   `json:"failed"`
	Skipped      int64   `json:"skipped"`
}

// WriteWarmup writes the line saying that a warm-up came first, after
// pgbench's summary lines.
func WriteWarmup(out io.Writer, w *Warmup) error {
	_, err := fmt.Fprintf(out, "warm-up: %s s before the measurement, %d transactions discarded (not in the figures above)\n",
		strconv.FormatFloat(w.Seconds, 'f', -1, 64), w.Transactions)
	return err
}
