package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
)

// version is gbench's version, printed by -V and in the summary banner.
const version = "0.1.0"

// runPgbench is gbench's pgbench-compatible mode. The checks come in
// pgbench's order, so that a command line with several mistakes gets the
// same first complaint.
func runPgbench(env *Env, args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "--help", "-?":
			return showUsage(env)
		case "--version", "-V":
			return showVersion(env)
		}
	}
	if groups, err := splitGroups(args); err != nil {
		return fail(env, err)
	} else if groups != nil {
		return runGroups(env, groups)
	}
	o, fs, rest, err := parseArgs(env, args)
	var ee *earlyExit
	switch {
	case errors.As(err, &ee):
		fmt.Fprint(env.Stderr, ee.text)
		return exitOK
	case err != nil:
		return fail(env, err)
	case o.help: // gbench takes --help and -V anywhere, not only first
		return showUsage(env)
	case o.version:
		return showVersion(env)
	}
	if err := checkCommandLine(o, fs, rest); err != nil {
		return fail(env, err)
	}
	if o.initialize {
		return runInit(env, o, fs)
	}
	return runBench(env, o, fs)
}

// checkCommandLine applies pgbench's checks after the options are read:
// the scripts' weights, the database name as an argument, the modes.
func checkCommandLine(o *options, fs *pflag.FlagSet, rest []string) error {
	if !o.initialize && totalWeight(o) == 0 {
		return usagef("total script weight must not be zero")
	}
	if len(rest) > 0 && o.dbname == "" {
		o.dbname, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return &usageError{msg: fmt.Sprintf("too many command-line arguments (first is \"%s\")", rest[0]), hint: true}
	}
	return checkModes(o, fs)
}

// totalWeight is the sum of the scripts' weights; the default script
// weighs 1.
func totalWeight(o *options) int64 {
	if len(o.scripts) == 0 {
		return 1
	}
	var w int64
	for _, s := range o.scripts {
		w += int64(s.weight)
	}
	return w
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

// loadScripts returns the scripts of -f, -b, -N and -S in order; with
// none, pgbench's tpcb-like builtin. It reports whether a builtin is used
// (pgbench then reads the scale from pgbench_branches).
func loadScripts(env *Env, o *options) ([]*script.Script, bool, error) {
	if len(o.scripts) == 0 {
		if err := o.addScript(scriptSpec{builtin: true, name: "tpcb-like", weight: 1}); err != nil {
			return nil, false, err
		}
	}
	var out []*script.Script
	builtin := false
	for _, sp := range o.scripts {
		builtin = builtin || sp.builtin
		out = append(out, sp.script)
	}
	return out, builtin, nil
}

// maxScripts is pgbench's MAX_SCRIPTS.
const maxScripts = 128

// addScript reads and parses one script option, as pgbench's
// process_file and process_builtin do while the options are read.
func (o *options) addScript(sp scriptSpec) error {
	name, text, err := scriptSource(o.env, sp)
	if err != nil {
		return err
	}
	s, err := script.Parse(name, text, sp.weight)
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if len(o.scripts) >= maxScripts {
		return usagef("at most %d SQL scripts are allowed", maxScripts)
	}
	sp.script = s
	o.scripts = append(o.scripts, sp)
	return nil
}

// scriptSource returns a script's name and text: a builtin, a file, or
// standard input for "-".
func scriptSource(env *Env, sp scriptSpec) (string, string, error) {
	if sp.builtin {
		b, err := script.FindBuiltin(sp.name)
		if err != nil {
			return "", "", &usageError{msg: err.Error() + "\n" + strings.TrimSuffix(script.ListBuiltins(), "\n") + workloadHint(sp.name)}
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
	var pe *os.PathError
	switch {
	case err == nil:
		return sp.name, string(data), nil
	case errors.Is(err, fs.ErrNotExist) && sp.name != "-":
		// workloads/NAME.sql runs the bundled copy when there is no such
		// file on disk; a file on disk always wins.
		if text, ok := bundledScript(sp.name); ok {
			return sp.name, text, nil
		}
		if strings.HasPrefix(filepath.ToSlash(sp.name), bundledDir) {
			return "", "", usagef("could not open file \"%s\": %s\ngbench: hint: no file and no bundled workload of that name; \"gbench workloads list\" lists the bundled ones", sp.name, strerror(err))
		}
	}
	switch {
	case errors.As(err, &pe) && pe.Op == "open":
		return "", "", usagef("could not open file \"%s\": %s", sp.name, strerror(err))
	}
	return "", "", usagef("could not read file \"%s\": %s", sp.name, strerror(err))
}

// unwrapPathError drops the path from an *os.PathError, which the message
// already names.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// strerror spells a system error as C's strerror does ("No such file or
// directory"); Go's texts are the same words in lower case.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	msg := errno.Error()
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}
