package main

import (
	"bytes"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gbench/gbench/run/matrix"
	"github.com/gbench/gbench/workloads"
)

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
	var files []string
	for _, name := range workloads.Plans() {
		files = append(files, name+".toml")
	}
	text := func(file string) []byte {
		t, _ := workloads.PlanText(file)
		return t
	}
	return runExtract(env, args, "plans", "plans", plansHint, files, text)
}
