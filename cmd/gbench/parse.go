package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// parseArgs parses the command line into options and positional arguments
// the way pgbench's getopt_long loop does: options are handled in order
// (scripts are read and checked where they appear), long options may be
// abbreviated, and getopt's own complaints keep getopt's wording. pflag
// holds the definitions and sets the values.
func parseArgs(env *Env, args []string) (*options, *pflag.FlagSet, []string, error) {
	o := &options{clients: 1, jobs: 1, mode: "simple", maxTries: 1, fillFactor: 100, startTimeout: defaultStartTimeout, env: env, args: args}
	fs := pflag.NewFlagSet("gbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	defineFlags(fs, o)
	if err := envSeed(env, o); err != nil {
		return nil, nil, nil, err
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		var err error
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case a == "-?":
			err = fs.Set("help", "true")
		case strings.HasPrefix(a, "--"):
			i, err = parseLong(fs, args, i)
		case strings.HasPrefix(a, "-") && a != "-":
			i, err = parseShort(fs, args, i)
		default:
			rest = append(rest, a)
		}
		if err != nil {
			return nil, nil, nil, translateFlagError(err)
		}
	}
	return o, fs, rest, nil
}

// getoptf is one of getopt_long's own messages: printed after the program
// name without "error:", then pgbench's hint.
func getoptf(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), hint: true, getopt: true}
}

// takesNoArg reports whether an option is a switch.
func takesNoArg(f *pflag.Flag) bool { return f.NoOptDefVal != "" && !optionalArg(f) }

// optionalArgKey marks an option whose argument is optional, given as
// "--name=value" only (getopt's optional_argument); bare, it takes
// NoOptDefVal.
const optionalArgKey = "gbench-optional-arg"

// optionalArg reports whether an option's argument is optional.
func optionalArg(f *pflag.Flag) bool { _, ok := f.Annotations[optionalArgKey]; return ok }

// parseLong handles args[i], a "--name[=value]" option, and returns the
// index of the last argument it used.
func parseLong(fs *pflag.FlagSet, args []string, i int) (int, error) {
	a := args[i]
	name, value, hasValue := strings.Cut(a[2:], "=")
	f, err := lookupLong(fs, name, a)
	if err != nil {
		return i, err
	}
	switch {
	case optionalArg(f) && !hasValue:
		value = f.NoOptDefVal
	case optionalArg(f):
	case takesNoArg(f) && hasValue:
		return i, getoptf("option '--%s' doesn't allow an argument", f.Name)
	case takesNoArg(f):
		value = f.NoOptDefVal
	case !hasValue && i+1 < len(args):
		i++
		value = args[i]
	case !hasValue:
		return i, getoptf("option '--%s' requires an argument", f.Name)
	}
	return i, fs.Set(f.Name, value)
}

// parseShort handles args[i], a cluster of short options such as "-nS" or
// "-c4", and returns the index of the last argument it used.
func parseShort(fs *pflag.FlagSet, args []string, i int) (int, error) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		f := fs.ShorthandLookup(a[j : j+1])
		if f == nil {
			return i, getoptf("invalid option -- '%c'", a[j])
		}
		if takesNoArg(f) {
			if err := fs.Set(f.Name, f.NoOptDefVal); err != nil {
				return i, err
			}
			continue
		}
		value := a[j+1:]
		if value == "" {
			if i+1 >= len(args) {
				return i, getoptf("option requires an argument -- '%c'", a[j])
			}
			i++
			value = args[i]
		}
		return i, fs.Set(f.Name, value)
	}
	return i, nil
}

// pgbenchLongOptions are pgbench 15's long options in the order of its
// long_options table, the order getopt_long lists them in when an
// abbreviation is ambiguous.
var pgbenchLongOptions = []string{
	"builtin", "client", "connect", "debug", "define", "file", "fillfactor", "host",
	"initialize", "init-steps", "jobs", "log", "latency-limit", "no-vacuum", "port",
	"progress", "protocol", "quiet", "report-per-command", "rate", "scale", "select-only",
	"skip-some-updates", "time", "transactions", "username", "vacuum-all", "unlogged-tables",
	"tablespace", "index-tablespace", "sampling-rate", "aggregate-interval",
	"progress-timestamp", "log-prefix", "foreign-keys", "random-seed", "show-script",
	"partitions", "partition-method", "failures-detailed", "max-tries", "verbose-errors",
}

// lookupLong finds a long option by its name or an abbreviation. An
// abbreviation is resolved among pgbench's options first, so that it means
// what it means to pgbench, and only then among gbench's additions.
func lookupLong(fs *pflag.FlagSet, name, arg string) (*pflag.Flag, error) {
	if f := fs.Lookup(name); f != nil && name != "" {
		return f, nil
	}
	known := map[string]bool{}
	for _, n := range pgbenchLongOptions {
		known[n] = true
	}
	var extra []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !known[f.Name] {
			extra = append(extra, f.Name)
		}
	})
	for _, names := range [][]string{pgbenchLongOptions, extra} {
		var found []string
		for _, n := range names {
			if name != "" && strings.HasPrefix(n, name) {
				found = append(found, n)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return fs.Lookup(found[0]), nil
		}
		return nil, getoptf("option '%s' is ambiguous; possibilities: '--%s'", arg, strings.Join(found, "' '--"))
	}
	return nil, getoptf("unrecognized option '%s'", arg)
}

// translateFlagError turns an error of a Value's Set into pgbench's message.
func translateFlagError(err error) error {
	var ue *usageError
	if errors.As(err, &ue) {
		return ue
	}
	var ee *earlyExit
	if errors.As(err, &ee) {
		return ee
	}
	var oe *optionError
	if errors.As(err, &oe) {
		return &usageError{msg: oe.msg}
	}
	return &usageError{msg: err.Error(), hint: true}
}
