package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Exit statuses, as pgbench's.
const (
	exitOK    = 0
	exitUsage = 1 // invalid options or scripts, failed setup or connection
	exitRun   = 2 // failure during the run; partial results were printed
	// exitThreshold: the run went well but breached a --threshold (gbench's;
	// 1 and 2 win over it).
	exitThreshold = 3
)

// Env is everything gbench takes from its process, so that tests can run
// it in-process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Now            func() time.Time
	// Signals registers a channel for interrupt signals; nil ignores them.
	Signals func(chan<- os.Signal)
}

// Run runs gbench with the arguments after the program name and returns
// the exit status.
func Run(env *Env, args []string) int {
	if len(args) > 0 {
		if sub, ok := subcommands()[args[0]]; ok {
			return sub(env, args[1:])
		}
	}
	return runPgbench(env, args)
}

// subcommands returns gbench's additions to pgbench's command line, by
// name: each takes the arguments after its name and returns the exit
// status. Anything else is a pgbench command line. It is a function, not a
// variable, because ab runs gbench itself (Run) to set its servers up.
func subcommands() map[string]func(*Env, []string) int {
	return map[string]func(*Env, []string) int{
		"ab":        runAB,
		"curve":     runCurve,
		"matrix":    runMatrix,
		"merge":     runMerge,
		"plans":     runPlans,
		"report":    runReport,
		"sandbox":   runSandbox,
		"slo":       runSLO,
		"workloads": runWorkloads,
	}
}

// usageError is an invalid command line or script: exit status 1.
type usageError struct {
	msg  string
	hint bool // add "Try gbench --help"
	// getopt marks getopt_long's own messages, which pgbench prints as
	// "pgbench: invalid option -- 'x'", without "error:".
	getopt bool
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// fail prints an error like pgbench's pg_log_error and returns its status.
func fail(env *Env, err error) int {
	var ue *usageError
	isUsage := errors.As(err, &ue)
	if isUsage && ue.getopt {
		fmt.Fprintf(env.Stderr, "gbench: %v\n", err)
	} else {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
	}
	if isUsage && ue.hint {
		fmt.Fprintf(env.Stderr, "gbench: hint: Try \"gbench --help\" for more information.\n")
	}
	return exitUsage
}
