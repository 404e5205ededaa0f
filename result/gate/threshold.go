package gate

import (
	"fmt"
	"math"
	"strings"
)

// Threshold is a term a run must meet, over the whole run or over one of
// its scripts.
type Threshold struct {
	// Script names the script the term applies to (see Figures.Names);
	// "" for the whole run.
	Script string `json:"script,omitempty"`
	Term
}

// String is the threshold as written: "read:p99<=2ms".
func (t Threshold) String() string {
	if t.Script == "" {
		return t.Text
	}
	return t.Script + ":" + t.Text
}

// Parse reads a comma-separated list of thresholds, each a term
// optionally prefixed with "SCRIPT:". A script name may not hold a comma
// or a colon.
func Parse(s string) ([]Threshold, error) {
	var out []Threshold
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		var th Threshold
		if name, rest, ok := strings.Cut(item, ":"); ok {
			th.Script, item = strings.TrimSpace(name), rest
			if th.Script == "" {
				return nil, fmt.Errorf("invalid threshold %q: the script name before \":\" is empty", s)
			}
		}
		t, err := ParseTerm(item)
		if err != nil {
			return nil, fmt.Errorf("invalid threshold %q in %q: %v", strings.TrimSpace(item), s, err)
		}
		th.Term = t
		out = append(out, th)
	}
	return out, nil
}

// Figures are what a run (or one of its scripts) measured, for Check.
type Figures struct {
	// Names are the names a script answers to in a threshold; empty for
	// the whole run.
	Names []string
	// TPS is the throughput; Failures the share of failed and skipped
	// transactions over all scheduled ones.
	TPS, Failures float64
	// Failed is the count of failed and skipped transactions (for a
	// series or a matrix cell, the median over its runs).
	Failed float64
	// Mean, Stddev and Lag return the mean latency, its standard
	// deviation and the mean schedule lag in microseconds; ok is false
	// when nothing was measured (for Lag, also without --rate). Nil when
	// the result keeps no such figure.
	Mean, Stddev, Lag func() (us float64, ok bool)
	// Latency returns a latency percentile in microseconds; ok is false
	// when nothing was measured.
	Latency func(percentile float64) (us float64, ok bool)
}

// Verdict is one threshold checked against a run.
type Verdict struct {
	Threshold string `json:"threshold"`
	// Value is the figure measured, in the term's unit (microseconds, a
	// ratio, tps); absent when there was nothing to measure (Note says
	// why), which breaches the threshold.
	Value *float64 `json:"value,omitempty"`
	// Display is Value in words: "5.123 ms", "0.250%".
	Display string `json:"display"`
	Met     bool   `json:"met"`
	Note    string `json:"note,omitempty"`
}

// Breached reports whether any verdict is not met.
func Breached(vs []Verdict) bool {
	for _, v := range vs {
		if !v.Met {
			return true
		}
	}
	return false
}

// Check checks each threshold against the run's figures (total) or its
// script's (one of scripts, found by name).
func Check(ts []Threshold, total Figures, scripts []Figures) []Verdict {
	out := make([]Verdict, 0, len(ts))
	for _, t := range ts {
		f := total
		if t.Script != "" {
			i, _ := FindScript(t.Script, scripts)
			f = scripts[i]
		}
		out = append(out, t.check(f))
	}
	return out
}

// FindScript returns the index of the only script answering to name; an
// error says when none or several do.
func FindScript(name string, scripts []Figures) (int, error) {
	found := -1
	var all []string
	for i, s := range scripts {
		if len(s.Names) > 0 {
			all = append(all, s.Names[0])
		}
		for _, n := range s.Names {
			if n == name {
				if found >= 0 && found != i {
					return 0, fmt.Errorf("the threshold's script %q names several scripts: use its number (1 for the first)", name)
				}
				found = i
			}
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("the threshold's script %q is not one of the run's scripts (%s)", name, strings.Join(all, ", "))
	}
	return found, nil
}

// check checks one threshold against f.
func (t Threshold) check(f Figures) Verdict {
	v := Verdict{Threshold: t.String()}
	var value float64
	switch t.Figure {
	case Latency:
		us, ok := f.Latency(t.Percentile)
		if !ok {
			v.Display, v.Note = "—", "no transaction completed"
			return v
		}
		value = us
	case Mean, Stddev, Lag:
		get := map[string]func() (float64, bool){Mean: f.Mean, Stddev: f.Stddev, Lag: f.Lag}[t.Figure]
		if get == nil {
			v.Display, v.Note = "—", "this result keeps no "+t.Figure
			return v
		}
		us, ok := get()
		if !ok {
			v.Display, v.Note = "—", "no transaction completed"
			if t.Figure == Lag {
				v.Note = "no schedule lag: a run without --rate, or no transaction completed"
			}
			return v
		}
		value = us
	case Failures:
		value = f.Failures
	case Failed:
		value = f.Failed
	default:
		value = f.TPS
	}
	if math.IsNaN(value) {
		v.Display, v.Note = "—", "nothing was measured"
		return v
	}
	v.Value, v.Display, v.Met = &value, t.Format(value), t.Holds(value)
	return v
}
