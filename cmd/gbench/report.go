package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gbench/gbench/output/report"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/series"
	"github.com/spf13/pflag"
)

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
	compare := fs.Bool("compare", false, "compare two matrix results of the same plan, BEFORE.json AFTER.json, cell by cell (to DIR/compare.md with -o, else standard output)")
	help := fs.Bool("help", false, "show this help, then exit")
	if err := fs.Parse(args); err != nil {
		return fail(env, translateFlagError(err))
	}
	if *help {
		fmt.Fprintf(env.Stdout, "gbench report writes the markdown report and SVG charts of a \"gbench matrix\" result,\nand for \"gbench curve\", \"gbench slo\" and \"gbench ab\" results also report.html: one\nself-contained page with the charts and tables. With --compare it compares two\nmatrix results of the same plan.\n\nUsage:\n  gbench report [OPTION]... FILE.json\n  gbench report --compare [-o DIR] [--partial] BEFORE.json AFTER.json\n\nOptions:\n%s", fs.FlagUsages())
		return exitOK
	}
	if *compare {
		return compareReport(env, fs.Args(), *outDir, *partial)
	}
	if fs.NArg() != 1 {
		return fail(env, &usageError{msg: "expected one result file (the JSON of gbench matrix, curve, slo or ab)", hint: true})
	}
	name := fs.Arg(0)
	if schema, err := readFile(name, readSchema); err != nil {
		return fail(env, err)
	} else if schema == series.Schema {
		return seriesReport(env, name, *outDir, *partial)
	}
	res, err := readFile(name, schema.Read)
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
func reportable(name string, r *schema.Result, partial bool) error {
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
func countValid(r *schema.Result) int {
	n := 0
	for i := range r.Samples {
		if r.Samples[i].Valid() {
			n++
		}
	}
	return n
}

// writeReport writes report.md and the charts into dir.
func writeReport(dir string, r *schema.Result) error {
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

// htmlFile is the name of the self-contained HTML report of a series.
const htmlFile = "report.html"

// readSchema reads the schema of a JSON result.
func readSchema(r io.Reader) (string, error) {
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.NewDecoder(r).Decode(&head); err != nil {
		return "", fmt.Errorf("not a gbench result: %w", err)
	}
	return head.Schema, nil
}

// seriesReport writes report.md, its charts and report.html for a result
// of gbench curve, slo or ab.
func seriesReport(env *Env, name, dir string, partial bool) int {
	res, err := readFile(name, series.Read)
	if err == nil && !partial {
		err = seriesReportable(name, res)
	}
	if err != nil {
		return fail(env, err)
	}
	if dir == "" {
		dir = filepath.Dir(name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(env, fmt.Errorf("could not create directory \"%s\": %v", dir, unwrapPathError(err)))
	}
	charts := report.SeriesCharts(res)
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{reportFile, func(w io.Writer) error { return report.SeriesMarkdown(w, res) }},
		{htmlFile, func(w io.Writer) error { return report.SeriesHTML(w, res) }},
	}
	for _, c := range charts {
		files = append(files, struct {
			name  string
			write func(io.Writer) error
		}{c.Name, c.WriteSVG})
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.write); err != nil {
			return fail(env, err)
		}
	}
	fmt.Fprintf(env.Stderr, "gbench report: wrote %s, %s and %d charts\n", filepath.Join(dir, reportFile), filepath.Join(dir, htmlFile), len(charts))
	return exitOK
}

// seriesReportable refuses a partial series or one with failed runs
// unless --partial.
func seriesReportable(name string, r *series.Result) error {
	failed := 0
	for i := range r.Runs {
		if !r.Runs[i].Valid() {
			failed++
		}
	}
	switch {
	case r.Partial:
		return usagef("%s is a partial result (%d runs, the series was stopped): run it again, or pass --partial to report what it holds", name, len(r.Runs))
	case failed > 0:
		return usagef("%s has %d failed runs: run it again, or pass --partial to report the runs that succeeded", name, failed)
	}
	return nil
}

// compareFile is the name of the comparison in the output directory.
const compareFile = "compare.md"

// compareReport is "gbench report --compare BEFORE.json AFTER.json": the
// two results must be sound, reportable and of the same plan on the same
// data (schema.SamePlan names the field that differs).
func compareReport(env *Env, args []string, dir string, partial bool) int {
	if len(args) != 2 {
		return fail(env, &usageError{msg: "--compare expects two matrix results: BEFORE.json AFTER.json", hint: true})
	}
	var res [2]*schema.Result
	for i, name := range args {
		r, err := readFile(name, schema.Read)
		if err == nil {
			err = reportable(name, r, partial)
		}
		if err != nil {
			return fail(env, err)
		}
		res[i] = r
	}
	if err := schema.SamePlan(&res[0].Plan, &res[1].Plan); err != nil {
		return fail(env, usagef("%s and %s measured different plans or data, so their cells cannot be compared: %v", args[0], args[1], err))
	}
	write := func(w io.Writer) error { return report.MatrixCompare(w, res[0], res[1], args[0], args[1]) }
	if dir == "" {
		if err := write(env.Stdout); err != nil {
			return fail(env, fmt.Errorf("could not write: %w", err))
		}
		return exitOK
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(env, fmt.Errorf("could not create directory \"%s\": %v", dir, unwrapPathError(err)))
	}
	if err := writeFile(filepath.Join(dir, compareFile), write); err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.Stderr, "gbench report: wrote %s\n", filepath.Join(dir, compareFile))
	return exitOK
}
