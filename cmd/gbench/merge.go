package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gbench/gbench/output/report"
	"github.com/spf13/pflag"
)

// runMerge is "gbench merge [-o FILE] A.json B.json...": it combines the
// JSON results of separate runs of the same scripts exactly, writes the
// merged result to standard output or FILE, and a summary: pgbench's of
// the whole run for the workers of a run over several machines, a short
// one otherwise; to standard error when the JSON goes to standard output.
// An input may also be a log holding results written with --json - (the
// logs of a Kubernetes Job's pods). Unreadable or incompatible inputs exit
// with status 1; a merge of workers with some missing exits with status 2
// after writing what it has, as a run with partial results does.
func runMerge(env *Env, args []string) int {
	fs := pflag.NewFlagSet("gbench merge", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	outPath := fs.StringP("output", "o", "-", "write the merged result to FILE (\"-\" for standard output)")
	help := fs.Bool("help", false, "show this help, then exit")
	respStats := fs.Bool("resp-stats", false, "print the \\resp cache counters in the summary of a merge of workers,\nas a run's --resp-stats (not needed when the workers ran with it)")
	thresholds := fs.StringArray("threshold", nil, "check the merged result against LIST, as a run's --threshold\n(exit status 3 when one is breached)")
	if err := fs.Parse(args); err != nil {
		return fail(env, translateFlagError(err))
	}
	if *help {
		fmt.Fprintf(env.Stdout, "gbench merge combines the JSON results (--json) of runs of the same scripts,\nor of the workers of one run (--worker), into one.\n\nUsage:\n  gbench merge [OPTION]... FILE...\n\nA FILE may be a JSON result or a log holding results written with --json -\n(kubectl logs of a Job's pods).\n\nOptions:\n%s", fs.FlagUsages())
		return exitOK
	}
	if fs.NArg() == 0 {
		return fail(env, &usageError{msg: "no input files", hint: true})
	}
	var in []*report.Result
	var names []string
	var empty []error // logs holding no result
	for _, name := range fs.Args() {
		rs, err := readResults(name)
		if errors.Is(err, errNoResult) {
			empty = append(empty, err)
			continue
		}
		if err != nil {
			return fail(env, err)
		}
		for i, r := range rs {
			in = append(in, r)
			if len(rs) > 1 {
				names = append(names, fmt.Sprintf("%s (result %d)", name, i+1))
			} else {
				names = append(names, name)
			}
		}
	}
	if len(in) == 0 {
		return fail(env, empty[0])
	}
	merged, err := report.Merge(in)
	if err != nil {
		return fail(env, rename(err, names))
	}
	// The log of a worker that died holds no result: the merge names the
	// worker missing. Outside a run over several workers nothing would.
	if len(empty) > 0 && merged.Fleet == nil {
		return fail(env, empty[0])
	}
	for _, err := range empty {
		fmt.Fprintf(env.Stderr, "gbench merge: warning: %v; skipped (the log of a worker that did not finish?)\n", errors.Unwrap(err))
	}
	// The summary prints the cache counters as the workers' did, or as
	// asked; the merged result says which it printed.
	merged.Config.RESPStats = merged.Config.RESPStats || *respStats
	if merged.Thresholds, err = mergeGates(merged, *thresholds); err != nil {
		return fail(env, err)
	}
	if err := writeTo(env.Stdout, *outPath, merged.Write); err != nil {
		return fail(env, err)
	}
	summary := env.Stdout
	if *outPath == "-" {
		summary = env.Stderr
	}
	if err := report.MergeSummary(summary, merged); err != nil {
		return fail(env, err)
	}
	code := exitOK
	if g := merged.Thresholds; g != nil {
		if err := report.WriteThresholds(summary, g.Verdicts); err != nil {
			return fail(env, err)
		}
		code = g.ExitStatus
	}
	if f := merged.Fleet; f != nil && len(f.Missing) > 0 {
		fmt.Fprintf(env.Stderr, "gbench merge: error: %d of the run's %d workers are missing (%s): the result covers part of the run only\n",
			len(f.Missing), f.Workers, joinInts(f.Missing))
		return exitRun
	}
	return code
}

// mergeGates checks --threshold against the merged result; nil without.
// The thresholds the inputs were run with are theirs: a merge checks only
// its own.
func mergeGates(merged *report.Result, lists []string) (*report.Gates, error) {
	if len(lists) == 0 {
		return nil, nil
	}
	s, err := report.SummaryOf(merged)
	if err != nil {
		return nil, err
	}
	o := &options{thresholds: lists, thresholdAbort: -1}
	g, err := parseGates(o, s.Config.Program)
	if err != nil {
		return nil, err
	}
	vs, err := report.CheckResult(merged, g.list)
	if err != nil {
		return nil, err
	}
	return report.NewGates(vs, exitThreshold), nil
}

// readResults reads the results in a file: a JSON result, or a log in
// which each result starts with a line "{" and ends with a line "}", as
// --json - writes it.
func readResults(name string) ([]*report.Result, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("could not open file \"%s\": %v", name, unwrapPathError(err))
	}
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
		r, err := report.ReadResult(bytes.NewReader(data))
		if err == nil {
			return []*report.Result{r}, nil
		}
		if blocks := jsonBlocks(data); len(blocks) < 2 {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	blocks := jsonBlocks(data)
	if len(blocks) == 0 {
		return nil, &noResultError{usagef("%s holds no gbench result: expected a JSON result (--json FILE) or a log holding one (--json -)", name)}
	}
	var out []*report.Result
	for i, b := range blocks {
		r, err := report.ReadResult(bytes.NewReader(b.text))
		if err != nil {
			return nil, fmt.Errorf("%s, result %d (from line %d): %w", name, i+1, b.line, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// errNoResult is what readResults's error is, errors.Is says, for a file
// holding no result at all.
var errNoResult = errors.New("no result")

// noResultError is readResults's error for a file holding no result.
type noResultError struct{ err error }

func (e *noResultError) Error() string        { return e.err.Error() }
func (e *noResultError) Unwrap() error        { return e.err }
func (e *noResultError) Is(target error) bool { return target == errNoResult }

// jsonBlock is a JSON document found in a log.
type jsonBlock struct {
	text []byte
	line int // where it starts, from 1
}

// jsonBlocks finds the documents of a log: from a line "{" to the next
// line "}".
func jsonBlocks(data []byte) []jsonBlock {
	var out []jsonBlock
	lines := strings.SplitAfter(string(data), "\n")
	start := -1
	for i, l := range lines {
		switch strings.TrimRight(l, "\r\n") {
		case "{":
			start = i
		case "}":
			if start >= 0 {
				out = append(out, jsonBlock{text: []byte(strings.Join(lines[start:i+1], "")), line: start + 1})
				start = -1
			}
		}
	}
	return out
}

// rename puts the file names into a merge error, which numbers inputs.
func rename(err error, names []string) error {
	var me *report.MergeError
	if errors.As(err, &me) {
		return fmt.Errorf("%s cannot be merged with %s: %v", names[me.Input], names[0], me.Err)
	}
	return err
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}
