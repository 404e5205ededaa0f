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

	"github.com/gbench/gbench/workloads"
	"github.com/spf13/pflag"
)

// workloadCommands are the commands of "gbench workloads".
var workloadCommands = map[string]func(*Env, []string) int{
	"list":    runWorkloadsList,
	"show":    runWorkloadsShow,
	"extract": runWorkloadsExtract,
	"load":    runWorkloadsLoad,
	"drop":    runWorkloadsDrop,
}

// runWorkloads is "gbench workloads COMMAND ...": the bundled workloads
// and their dataset, from the installed binary.
func runWorkloads(env *Env, args []string) int {
	if len(args) == 0 {
		return fail(env, usagef("missing command: list, show, extract, load or drop"+workloadsHint))
	}
	if args[0] == "--help" || args[0] == "-?" || args[0] == "help" {
		workloadsUsage(env.Stdout)
		return exitOK
	}
	cmd, ok := workloadCommands[args[0]]
	if !ok {
		return fail(env, usagef("unknown command \"%s\" of gbench workloads: list, show, extract, load or drop"+workloadsHint, args[0]))
	}
	return cmd(env, args[1:])
}

// workloadsHint ends a usage error of gbench workloads.
const workloadsHint = "\ngbench: hint: Try \"gbench workloads --help\" for more information."

// workloadsFlagError is translateFlagError with gbench workloads' hint.
func workloadsFlagError(err error) error { return flagErrorWithHint(err, workloadsHint) }

// flagErrorWithHint is translateFlagError with a subcommand's hint in
// place of gbench's own.
func flagErrorWithHint(err error, hint string) error {
	err = translateFlagError(err)
	var ue *usageError
	if errors.As(err, &ue) && ue.hint {
		return usagef("%s", ue.msg+hint)
	}
	return err
}

func workloadsUsage(w io.Writer) {
	fmt.Fprintf(w, `gbench workloads: the bundled workloads ("PostgreSQL as a cache vs Redis", YCSB A-F
on both protocols, a TPC-C-like mix) and their data. Run a workload with -f workloads/NAME.sql: a file of that name on disk
is read first, else the copy built into gbench runs (weights and -D as usual).

Usage:
  gbench workloads list                 what each workload measures and needs
  gbench workloads show NAME...         print bundled files (NAME: mget64, dataset.sql, ...)
  gbench workloads extract [--force] [DIR]
                                        write every bundled file into DIR (default
                                        ./workloads), to read or edit them
  gbench workloads load [OPTION]... [DBNAME]
                                        load the dataset into PostgreSQL, and into
                                        Redis with --resp URL ("--help" for options)
  gbench workloads drop [OPTION]... [DBNAME]
                                        remove it

Example:
  gbench workloads load --resp redis://127.0.0.1:6379/0 mydb
  gbench -n -M prepared -f workloads/mget64.sql -c 64 -T 10 mydb
  gbench -f workloads/resp-mget64.sql --resp redis://127.0.0.1:6379/0 -c 64 -T 10
`)
}

// runWorkloadsList prints one line per bundled workload.
func runWorkloadsList(env *Env, args []string) int {
	if len(args) > 0 {
		return fail(env, usagef("unexpected argument \"%s\""+workloadsHint, args[0]))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Bundled workloads: run one with -f workloads/NAME.sql (a file of that name on disk wins).\n")
	fmt.Fprintf(&b, "They read the dataset \"gbench workloads load\" loads; -D items=N, -D keys=K and -D recordcount=R (YCSB)\n")
	fmt.Fprintf(&b, "are its sizes, -D warehouses=W the TPC-C-like scale (loaded with --tpcc-warehouses W).\n\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "NAME\tSERVERS\t-M\t-D\tWHAT\n")
	for _, w := range workloads.Workloads() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.Name, servers(w), w.Mode, strings.Join(w.Defines, ","), summary(w.Name))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\n%s: %s\n", workloads.DatasetFile, summary(workloads.DatasetFile))
	fmt.Fprintf(&b, "%s: %s\n", workloads.TPCCFile, summary(workloads.TPCCFile))
	return writeOut(env, b.Bytes())
}

// servers says which servers a workload talks to.
func servers(w workloads.Workload) string {
	switch {
	case w.SQL && w.RESP:
		return "PostgreSQL+Redis"
	case w.RESP:
		return "Redis"
	}
	return "PostgreSQL"
}

// summary is the first line of a bundled file's header, after its name.
func summary(name string) string {
	text, _ := workloads.Text(name)
	line, _, _ := strings.Cut(text, "\n")
	return strings.TrimSuffix(strings.TrimPrefix(line, "-- "+name+": "), ".")
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeOut writes b to standard output.
func writeOut(env *Env, b []byte) int {
	if _, err := env.Stdout.Write(b); err != nil {
		return fail(env, fmt.Errorf("could not write: %w", err))
	}
	return exitOK
}

// runWorkloadsShow prints bundled files.
func runWorkloadsShow(env *Env, args []string) int {
	if len(args) == 0 {
		return fail(env, usagef("gbench workloads show needs a NAME, such as mget64 (\"gbench workloads list\" lists them)"))
	}
	var b bytes.Buffer
	for _, a := range args {
		name := bundledName(a)
		if name == "" {
			return fail(env, usagef("no bundled workload \"%s\"; \"gbench workloads list\" lists them", a))
		}
		text, _ := workloads.Text(name)
		b.WriteString(text)
	}
	return writeOut(env, b.Bytes())
}

// runWorkloadsExtract writes every bundled file into a directory.
func runWorkloadsExtract(env *Env, args []string) int {
	names, err := fs.Glob(workloads.Files(), "*.sql")
	if err != nil {
		return fail(env, err)
	}
	text := func(n string) []byte {
		t, _ := workloads.Text(n)
		return []byte(t)
	}
	return runExtract(env, args, "workloads", strings.TrimSuffix(bundledDir, "/"), workloadsHint, names, text)
}

// runExtract is "gbench GROUP extract [--force] [DIR]": it writes the
// bundled files names (their text from text) into DIR, by default dir.
func runExtract(env *Env, args []string, group, dir, hint string, names []string, text func(string) []byte) int {
	flags := pflag.NewFlagSet("gbench "+group+" extract", pflag.ContinueOnError)
	flags.SetOutput(io.Discard)
	force := flags.Bool("force", false, "overwrite files that differ from the bundled ones")
	if err := flags.Parse(args); err != nil {
		return fail(env, flagErrorWithHint(err, hint))
	}
	switch flags.NArg() {
	case 0:
	case 1:
		dir = flags.Arg(0)
	default:
		return fail(env, usagef("too many command-line arguments (first is \"%s\")"+hint, flags.Arg(1)))
	}
	wrote, same, err := extract(dir, names, text, *force)
	if err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.Stderr, "gbench %s: wrote %d %s to %s (%d already there, unchanged)\n", group, wrote, plural(wrote, "file", "files"), dir, same)
	return exitOK
}

// extract writes the bundled files names into dir. Unless force is set,
// it writes nothing when a file there differs from the bundled one, so
// that a user's edits are not lost.
func extract(dir string, names []string, text func(string) []byte, force bool) (wrote, same int, err error) {
	var todo, differ []string
	for _, n := range names {
		old, err := os.ReadFile(filepath.Join(dir, n))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			todo = append(todo, n)
		case err != nil:
			return 0, 0, usagef("could not read file \"%s\": %s", filepath.Join(dir, n), strerror(err))
		case bytes.Equal(old, text(n)):
			same++
		default:
			todo, differ = append(todo, n), append(differ, n)
		}
	}
	if len(differ) > 0 && !force {
		return 0, 0, usagef("%s: %s %s from the bundled %s (edited?); nothing was written: add --force to overwrite, or extract into another directory",
			dir, strings.Join(differ, ", "), plural(len(differ), "differs", "differ"), plural(len(differ), "copy", "copies"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, usagef("could not create directory \"%s\": %s", dir, strerror(err))
	}
	for _, n := range todo {
		if err := os.WriteFile(filepath.Join(dir, n), text(n), 0o644); err != nil {
			return wrote, same, usagef("could not write file \"%s\": %s", filepath.Join(dir, n), strerror(err))
		}
		wrote++
	}
	return wrote, same, nil
}
