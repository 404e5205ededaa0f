package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
)

// version is gbench's version, printed by -V and in the summary banner.
const version = "0.1.0"

// runPgbench is gbench's pgbench-compatible mode.
func runPgbench(env *Env, args []string) int {
	o, fs, rest, err := parseArgs(args)
	if err != nil {
		return fail(env, err)
	}
	switch {
	case o.help:
		usage(env.Stdout, fs)
		return exitOK
	case o.version:
		fmt.Fprintf(env.Stdout, "gbench %s (pgbench-compatible with PostgreSQL 15)\n", version)
		return exitOK
	case o.showScript != "":
		b, err := script.FindBuiltin(o.showScript)
		if err != nil {
			fmt.Fprintf(env.Stderr, "gbench: error: %v\n%s", err, script.ListBuiltins())
			return exitUsage
		}
		fmt.Fprint(env.Stderr, b.ShowScript())
		return exitOK
	}
	for _, s := range o.scripts {
		if s.builtin && s.name == "list" {
			fmt.Fprint(env.Stderr, script.ListBuiltins())
			return exitOK
		}
	}
	if len(rest) > 0 && o.dbname == "" {
		o.dbname, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return fail(env, &usageError{msg: fmt.Sprintf("too many command-line arguments (first is \"%s\")", rest[0]), hint: true})
	}
	if err := checkModes(o, fs); err != nil {
		return fail(env, err)
	}
	if o.initialize {
		return runInit(env, o, fs)
	}
	return runBench(env, o, fs)
}

// checkModes applies pgbench's rule that initialization and benchmarking
// options do not mix.
func checkModes(o *options, fs *pflag.FlagSet) error {
	var err error
	fs.Visit(func(f *pflag.Flag) {
		switch {
		case err != nil:
		case o.initialize && benchOnly[f.Name]:
			err = usagef("some of the specified options cannot be used in initialization (-i) mode")
		case !o.initialize && initOnly[f.Name]:
			err = usagef("some of the specified options cannot be used in benchmarking mode")
		}
	})
	return err
}

// loadScripts reads and parses the -f and -b scripts in order; with none,
// the default is pgbench's tpcb-like builtin. It reports whether a builtin
// is used (pgbench then reads the scale from pgbench_branches).
func loadScripts(env *Env, o *options) ([]*script.Script, bool, error) {
	specs := o.scripts
	if len(specs) == 0 {
		specs = []scriptSpec{{builtin: true, name: "tpcb-like", weight: 1}}
	}
	var out []*script.Script
	builtin := false
	for _, sp := range specs {
		name, text, err := scriptSource(env, sp)
		if err != nil {
			return nil, false, err
		}
		builtin = builtin || sp.builtin
		s, err := script.Parse(name, text, sp.weight)
		if err != nil {
			return nil, false, &usageError{msg: err.Error()}
		}
		out = append(out, s)
	}
	if len(out) > 128 {
		return nil, false, usagef("at most 128 SQL scripts are allowed")
	}
	return out, builtin, nil
}

// scriptSource returns a script's name and text: a builtin, a file, or
// standard input for "-".
func scriptSource(env *Env, sp scriptSpec) (string, string, error) {
	if sp.builtin {
		b, err := script.FindBuiltin(sp.name)
		if err != nil {
			return "", "", &usageError{msg: err.Error() + "\n" + strings.TrimRight(script.ListBuiltins(), "\n")}
		}
		return b.Desc, b.Text, nil
	}
	var data []byte
	var err error
	if sp.name == "-" {
		data, err = io.ReadAll(env.Stdin)
	} else {
		data, err = os.ReadFile(sp.name)
	}
	if err != nil {
		return "", "", usagef("could not open file \"%s\": %v", sp.name, unwrapPathError(err))
	}
	return sp.name, string(data), nil
}

// unwrapPathError drops the path from an *os.PathError, which the message
// already names.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "gbench is a benchmarking tool for PostgreSQL and Redis-protocol servers,\ncompatible with pgbench.\n\n")
	fmt.Fprintf(w, "Usage:\n  gbench [OPTION]... [DBNAME]\n  gbench merge FILE.json...\n  gbench report FILE.json\n  gbench matrix [OPTION]...\n  gbench sandbox [OPTION]... [-- GBENCH-ARGS]\n\nOptions:\n")
	fmt.Fprint(w, fs.FlagUsages())
	fmt.Fprintf(w, "  -?, --help               show this help, then exit\n")
}
