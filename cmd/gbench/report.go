package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gbench/gbench/engine/matrix"
	"github.com/gbench/gbench/engine/report"
	"github.com/spf13/pflag"
)

func init() { subcommands["report"] = runReport }

// reportFile is the name of the markdown report in the output directory.
const reportFile = "report.md"

// runReport is "gbench report FILE.json [-o DIR] [--partial]": it turns
// the result of gbench matrix into DIR/report.md and the SVG charts it
// links. It refuses, with status 1, a result whose contract check failed,
// and a partial result or one with failed samples unless --partial.
func runReport(env *Env, args []string) int {
	fs := pflag.NewFlagSet("gbench report", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	outDir := fs.StringP("output", "o", "", "write report.md and the charts into `DIR` (default: the JSON file's directory)")
	partial := fs.Bool("partial", false, "report a partial result or one with failed samples, from the samples that succeeded")
	help := fs.Bool("help", false, "show this help, then exit")
	if err := fs.Parse(args); err != nil {
		return fail(env, translateFlagError(err))
	}
	if *help {
		fmt.Fprintf(env.Stdout, "gbench report writes the markdown report and SVG charts of a \"gbench matrix\" result.\n\nUsage:\n  gbench report [OPTION]... FILE.json\n\nOptions:\n%s", fs.FlagUsages())
		return exitOK
	}
	if fs.NArg() != 1 {
		return fail(env, &usageError{msg: "expected one result file (gbench matrix's JSON)", hint: true})
	}
	name := fs.Arg(0)
	res, err := readFile(name, matrix.Read)
	if err == nil {
		err = reportable(name, res, *partial)
	}
	if err != nil {
		return fail(env, err)
	}
	dir := *outDir
	if dir == "" {
		dir = filepath.Dir(name)
	}
	if err := writeReport(dir, res); err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.Stderr, "gbench report: wrote %s and %d charts\n", filepath.Join(dir, reportFile), len(report.MatrixCharts(res)))
	return exitOK
}

// reportable refuses results a report would misrepresent.
func reportable(name string, r *matrix.Result, partial bool) error {
	switch {
	case !r.Contract.Passed:
		return usagef("%s: the contract check failed, nothing was measured: %s", name, r.Contract.Error)
	case partial:
		return nil
	case r.Partial:
		return usagef("%s is a partial result (%d of %d samples, the run was stopped); its medians would compare cells measured unequally: run the matrix again, or pass --partial to report what it holds",
			name, len(r.Samples), r.Missing()+countValid(r))
	case r.FailedSamples > 0:
		return usagef("%s has %d failed samples; its medians would compare cells measured unequally: run the matrix again, or pass --partial to report the samples that succeeded",
			name, r.FailedSamples)
	}
	return nil
}

// countValid counts the valid samples.
func countValid(r *matrix.Result) int {
	n := 0
	for i := range r.Samples {
		if r.Samples[i].Valid() {
			n++
		}
	}
	return n
}

// writeReport writes report.md and the charts into dir.
func writeReport(dir string, r *matrix.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("could not create directory \"%s\": %v", dir, unwrapPathError(err))
	}
	if err := writeFile(filepath.Join(dir, reportFile), func(w io.Writer) error { return report.Matrix(w, r) }); err != nil {
		return err
	}
	for _, c := range report.MatrixCharts(r) {
		if err := writeFile(filepath.Join(dir, c.Name), c.WriteSVG); err != nil {
			return err
		}
	}
	return nil
}
