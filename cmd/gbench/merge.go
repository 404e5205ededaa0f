package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/gbench/gbench/engine/report"
	"github.com/spf13/pflag"
)

func init() { subcommands["merge"] = runMerge }

// runMerge is "gbench merge [-o FILE] A.json B.json...": it combines the
// JSON results of separate runs of the same scripts exactly, writes the
// merged result to standard output or FILE, and a short summary to
// standard error. Unreadable or incompatible inputs exit with status 1.
func runMerge(env *Env, args []string) int {
	fs := pflag.NewFlagSet("gbench merge", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	outPath := fs.StringP("output", "o", "-", "write the merged result to FILE (\"-\" for standard output)")
	help := fs.Bool("help", false, "show this help, then exit")
	if err := fs.Parse(args); err != nil {
		return fail(env, translateFlagError(err))
	}
	if *help {
		fmt.Fprintf(env.Stdout, "gbench merge combines the JSON results (--json) of runs of the same scripts.\n\nUsage:\n  gbench merge [OPTION]... FILE.json...\n\nOptions:\n%s", fs.FlagUsages())
		return exitOK
	}
	if fs.NArg() == 0 {
		return fail(env, &usageError{msg: "no input files", hint: true})
	}
	var in []*report.Result
	for _, name := range fs.Args() {
		r, err := readFile(name, report.ReadResult)
		if err != nil {
			return fail(env, err)
		}
		in = append(in, r)
	}
	merged, err := report.Merge(in)
	if err != nil {
		return fail(env, rename(err, fs.Args()))
	}
	if err := writeTo(env.Stdout, *outPath, merged.Write); err != nil {
		return fail(env, err)
	}
	if err := report.MergeText(env.Stderr, merged); err != nil {
		return fail(env, err)
	}
	return exitOK
}

// rename puts the file names into a merge error, which numbers inputs.
func rename(err error, names []string) error {
	var me *report.MergeError
	if errors.As(err, &me) {
		return fmt.Errorf("%s cannot be merged with %s: %v", names[me.Input], names[0], me.Err)
	}
	return err
}
