package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// defaultLatencyPercentiles is a bare --latency-percentiles, as CF #7567's
// patches define it.
const defaultLatencyPercentiles = "50,95,99"

// maxLatencyPercentiles is the most values --latency-percentiles takes.
const maxLatencyPercentiles = 10

// defineOutputFlags declares --pgbench-output and --latency-percentiles.
func defineOutputFlags(fs *pflag.FlagSet, o *options) {
	o.pgbenchOutput = 15
	fs.Var(&layoutValue{&o.pgbenchOutput}, "pgbench-output", "print the summary in pgbench 15's or 18's layout (default: 15)")
	fs.Var(&latencyPercentilesValue{&o.latencyPercentiles}, "latency-percentiles", "the proposed pgbench option (CF #7567) for --percentiles:\nbare, 50,95,99; at most 10 values")
	f := fs.Lookup("latency-percentiles")
	f.NoOptDefVal = defaultLatencyPercentiles
	f.Annotations = map[string][]string{optionalArgKey: nil}
}

// layoutValue is --pgbench-output: 15 or 18.
type layoutValue struct{ p *int }

func (v *layoutValue) String() string { return "" }
func (v *layoutValue) Type() string   { return "15|18" }
func (v *layoutValue) Set(s string) error {
	switch strings.TrimSpace(s) {
	case "15":
		*v.p = 15
	case "18":
		*v.p = 18
	default:
		return usagef("invalid value \"%s\" for option --pgbench-output: expected 15 or 18", s)
	}
	return nil
}

// latencyPercentilesValue is --latency-percentiles's list, checked as
// --percentiles's when the options are validated.
type latencyPercentilesValue struct{ p *string }

func (v *latencyPercentilesValue) String() string { return "" }
func (v *latencyPercentilesValue) Type() string   { return "LIST" }
func (v *latencyPercentilesValue) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return usagef("invalid value \"\" for option --latency-percentiles: expected a list like 50,95,99")
	}
	if n := len(strings.Split(s, ",")); n > maxLatencyPercentiles {
		return usagef("too many values for option --latency-percentiles: %d, at most %d", n, maxLatencyPercentiles)
	}
	*v.p = s
	return nil
}

// percentileList is the percentiles to report: --latency-percentiles's
// when given (it may not be given with --percentiles), else
// --percentiles's.
func percentileList(o *options, fs *pflag.FlagSet) (string, error) {
	if o.latencyPercentiles == "" {
		return o.percentiles, nil
	}
	if fs.Changed("percentiles") {
		return "", usagef("--latency-percentiles and --percentiles name the same percentiles: give one of them")
	}
	return o.latencyPercentiles, nil
}
