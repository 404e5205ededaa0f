package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/gbench/gbench/engine/matrix"
	"github.com/gbench/gbench/workloads"
	"github.com/spf13/pflag"
)

func init() { subcommands["plans"] = runPlans }

// planCommands are the commands of "gbench plans".
var planCommands = map[string]func(*Env, []string) int{
	"list":    runPlansList,
	"show":    runPlansShow,
	"extract": runPlansExtract,
}

// plansHint ends a usage error of gbench plans.
const plansHint = "\ngbench: hint: Try \"gbench plans --help\" for more information."

// runPlans is "gbench plans COMMAND ...": the bundled matrix plans, from
// the installed binary.
func runPlans(env *Env, args []string) int {
	if len(args) == 0 {
		return fail(env, usagef("missing command: list, show or extract"+plansHint))
	}
	if args[0] == "--help" || args[0] == "-?" || args[0] == "help" {
		plansUsage(env.Stdout)
		return exitOK
	}
	cmd, ok := planCommands[args[0]]
	if !ok {
		return fail(env, usagef("unknown command \"%s\" of gbench plans: list, show or extract"+plansHint, args[0]))
	}
	return cmd(env, args[1:])
}

func plansUsage(w io.Writer) {
	fmt.Fprintf(w, `gbench plans: the bundled plans of "gbench matrix". A plan is a TOML file: the
paths to compare (gbench scripts), the mixes, keys per request, connections,
rates, the length or request count of a sample, repeats and servers
(docs/matrix.md describes every field). Run one with "gbench matrix --plan
NAME"; write your own from one of these and run it with --plan FILE.toml.

Usage:
  gbench plans list                     what each plan measures, and its size
  gbench plans show NAME...             print bundled plans (NAME: mixed, ...)
  gbench plans extract [--force] [DIR]  write every bundled plan into DIR
                                        (default ./plans), to read or edit them

Example:
  gbench plans show mixed > my-plan.toml
  gbench matrix --plan my-plan.toml -o mine.json && gbench report mine.json -o mine
`)
}

// runPlansList prints one line per bundled plan.
func runPlansList(env *Env, args []string) int {
	if len(args) > 0 {
		return fail(env, usagef("unexpected argument \"%s\""+plansHint, args[0]))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Bundled plans: run one with gbench matrix --plan NAME (\"gbench plans show NAME\" prints it).\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "NAME\tSAMPLES\tEACH\tWHAT\n")
	for _, name := range workloads.Plans() {
		cfg, err := bundledPlan(name)
		if err != nil {
			return fail(env, err)
		}
		each := fmt.Sprintf("%g s", cfg.Duration.Seconds())
		if cfg.Requests > 0 {
			each = fmt.Sprintf("%d requests", cfg.Requests)
		}
		cells := len(cfg.Paths) * max(len(cfg.Mixes), 1) * max(len(cfg.Keys), 1) * len(cfg.Connections) * max(len(cfg.Rates), 1)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", name, cells*cfg.Repeats, each, cfg.Title)
	}
	tw.Flush()
	return writeOut(env, b.Bytes())
}

// bundledPlan validates a bundled plan.
func bundledPlan(name string) (*matrix.Config, error) {
	plan, popts, err := readPlan(name)
	if err != nil {
		return nil, err
	}
	return plan.Config(popts)
}

// runPlansShow prints bundled plans.
func runPlansShow(env *Env, args []string) int {
	if len(args) == 0 {
		return fail(env, usagef("gbench plans show needs a NAME, such as mixed (\"gbench plans list\" lists them)"))
	}
	var b bytes.Buffer
	for _, a := range args {
		text, err := workloads.PlanText(a)
		if err != nil {
			return fail(env, usagef("no bundled plan \"%s\"; \"gbench plans list\" lists them", a))
		}
		b.Write(text)
	}
	return writeOut(env, b.Bytes())
}

// runPlansExtract writes every bundled plan into a directory.
func runPlansExtract(env *Env, args []string) int {
	fset := pflag.NewFlagSet("gbench plans extract", pflag.ContinueOnError)
	fset.SetOutput(io.Discard)
	force := fset.Bool("force", false, "overwrite files that differ from the bundled ones")
	if err := fset.Parse(args); err != nil {
		return fail(env, translateFlagError(err))
	}
	dir := "plans"
	switch fset.NArg() {
	case 0:
	case 1:
		dir = fset.Arg(0)
	default:
		return fail(env, usagef("too many command-line arguments (first is \"%s\")"+plansHint, fset.Arg(1)))
	}
	var todo, differ []string
	same := 0
	for _, name := range workloads.Plans() {
		text, _ := workloads.PlanText(name)
		file := name + ".toml"
		old, err := os.ReadFile(filepath.Join(dir, file))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			todo = append(todo, file)
		case err != nil:
			return fail(env, usagef("could not read file \"%s\": %s", filepath.Join(dir, file), strerror(err)))
		case bytes.Equal(old, text):
			same++
		default:
			todo, differ = append(todo, file), append(differ, file)
		}
	}
	if len(differ) > 0 && !*force {
		return fail(env, usagef("%s: %s %s from the bundled %s (edited?); nothing was written: add --force to overwrite, or extract into another directory",
			dir, strings.Join(differ, ", "), plural(len(differ), "differs", "differ"), plural(len(differ), "copy", "copies")))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(env, usagef("could not create directory \"%s\": %s", dir, strerror(err)))
	}
	for _, file := range todo {
		text, _ := workloads.PlanText(file)
		if err := os.WriteFile(filepath.Join(dir, file), text, 0o644); err != nil {
			return fail(env, usagef("could not write file \"%s\": %s", filepath.Join(dir, file), strerror(err)))
		}
	}
	fmt.Fprintf(env.Stderr, "gbench plans: wrote %d %s to %s (%d already there, unchanged)\n", len(todo), plural(len(todo), "file", "files"), dir, same)
	return exitOK
}
