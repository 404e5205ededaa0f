package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/pflag"
)

// parseArgs parses the command line into options and positional arguments,
// with pgbench's error wording.
func parseArgs(args []string) (*options, *pflag.FlagSet, []string, error) {
	o := &options{clients: 1, jobs: 1, mode: "simple", maxTries: 1, fillFactor: 100}
	fs := pflag.NewFlagSet("gbench", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	defineFlags(fs, o)
	args = append([]string(nil), args...)
	for i, a := range args {
		if a == "-?" {
			args[i] = "--help"
		}
		if a == "--" {
			break
		}
	}
	if err := fs.Parse(args); err != nil {
		return nil, nil, nil, translateFlagError(err)
	}
	return o, fs, fs.Args(), nil
}

var (
	reUnknownShort = regexp.MustCompile(`^unknown shorthand flag: '(.)'`)
	reUnknownLong  = regexp.MustCompile(`^unknown flag: --(.*)$`)
	reNeedsArg     = regexp.MustCompile(`^flag needs an argument: (?:'(.)' in -.|--(.*))$`)
)

// translateFlagError rewrites pflag's messages as getopt_long's and
// pgbench's.
func translateFlagError(err error) error {
	var oe *optionError
	if errors.As(err, &oe) {
		return &usageError{msg: oe.msg}
	}
	msg := err.Error()
	switch {
	case reUnknownShort.MatchString(msg):
		return &usageError{msg: fmt.Sprintf("invalid option -- '%s'", reUnknownShort.FindStringSubmatch(msg)[1]), hint: true}
	case reUnknownLong.MatchString(msg):
		name := reUnknownLong.FindStringSubmatch(msg)[1]
		return &usageError{msg: fmt.Sprintf("unrecognized option '--%s'", name), hint: true}
	case reNeedsArg.MatchString(msg):
		m := reNeedsArg.FindStringSubmatch(msg)
		if m[1] != "" {
			return &usageError{msg: fmt.Sprintf("option requires an argument -- '%s'", m[1]), hint: true}
		}
		return &usageError{msg: fmt.Sprintf("option '--%s' requires an argument", m[2]), hint: true}
	}
	return &usageError{msg: strings.TrimPrefix(msg, "invalid argument "), hint: true}
}
