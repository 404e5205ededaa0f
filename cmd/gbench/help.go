package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// pgbenchVersion is the PostgreSQL release whose pgbench gbench follows;
// -V prints it where pgbench prints its own version.
const pgbenchVersion = "15"

// showVersion prints pgbench's "NAME (PostgreSQL) VERSION" line, which
// scripts parse, with gbench's own version beside it.
func showVersion(env *Env) int {
	fmt.Fprintf(env.Stdout, "gbench (PostgreSQL) %s (gbench %s)\n", pgbenchVersion, version)
	return exitOK
}

// showUsage prints --help.
func showUsage(env *Env) int {
	o := &options{env: env}
	fs := pflag.NewFlagSet("gbench", pflag.ContinueOnError)
	defineFlags(fs, o)
	usage(env.Stdout, fs)
	return exitOK
}

// helpOption is one line of --help: a flag, the name of its argument, and
// the description when it is not the flag's own (pgbench describes -n and
// -s once for initialization and once for benchmarking).
type helpOption struct {
	name, arg, usage string
}

// helpSections are pgbench's sections of --help, in its order, with
// gbench's options in a section of their own.
var helpSections = []struct {
	title   string
	options []helpOption
}{
	{"Initialization options", []helpOption{
		{name: "initialize"},
		{name: "init-steps", arg: `[dtgGvpf]+ (default "dtgvp")`},
		{name: "fillfactor", arg: "NUM"},
		{name: "no-vacuum", usage: "do not run VACUUM during initialization"},
		{name: "quiet"},
		{name: "scale", arg: "NUM", usage: "scaling factor"},
		{name: "foreign-keys"},
		{name: "index-tablespace", arg: "TABLESPACE"},
		{name: "partition-method", arg: "(range|hash)"},
		{name: "partitions", arg: "NUM"},
		{name: "tablespace", arg: "TABLESPACE"},
		{name: "unlogged-tables"},
	}},
	{"Options to select what to run", []helpOption{
		{name: "builtin", arg: "NAME[@W]"},
		{name: "file", arg: "FILENAME[@W]"},
		{name: "skip-some-updates"},
		{name: "select-only"},
	}},
	{"Benchmarking options", []helpOption{
		{name: "client", arg: "NUM"},
		{name: "connect"},
		{name: "define", arg: "VARNAME=VALUE"},
		{name: "jobs", arg: "NUM"},
		{name: "log"},
		{name: "latency-limit", arg: "NUM"},
		{name: "protocol", arg: "simple|extended|prepared"},
		{name: "no-vacuum", usage: "do not run VACUUM before tests"},
		{name: "progress", arg: "NUM"},
		{name: "report-per-command"},
		{name: "rate", arg: "NUM"},
		{name: "scale", arg: "NUM", usage: "report this scale factor in output"},
		{name: "transactions", arg: "NUM"},
		{name: "time", arg: "NUM"},
		{name: "vacuum-all"},
		{name: "aggregate-interval", arg: "NUM"},
		{name: "exit-on-abort"},
		{name: "failures-detailed"},
		{name: "log-prefix", arg: "PREFIX"},
		{name: "max-tries", arg: "NUM"},
		{name: "progress-timestamp"},
		{name: "random-seed", arg: "SEED"},
		{name: "sampling-rate", arg: "NUM"},
		{name: "show-script", arg: "NAME"},
		{name: "verbose-errors"},
		{name: "continue-on-error"},
	}},
	{"Common options", []helpOption{
		{name: "debug"},
		{name: "dbname", arg: "DBNAME"},
		{name: "host", arg: "HOSTNAME"},
		{name: "port", arg: "PORT"},
		{name: "username", arg: "USERNAME"},
		{name: "version"},
		{name: "help"},
	}},
	{"gbench options", []helpOption{
		{name: "resp", arg: "URL"},
		{name: "resp-stats"},
		{name: "percentiles", arg: "LIST"},
		{name: "latency-percentiles", arg: "LIST"},
		{name: "pgbench-output", arg: "15|18"},
		{name: "json", arg: "FILE"},
		{name: "hdr-log", arg: "FILE"},
		{name: "metrics-addr", arg: "HOST:PORT"},
		{name: "worker", arg: "I/N"},
		{name: "run-id", arg: "ID"},
		{name: "start-at", arg: "TIME"},
		{name: "start-timeout", arg: "NUM"},
		{name: "reconnect"},
		{name: "reconnect-delay", arg: "DELAY[,MAX]"},
		{name: "max-reconnects", arg: "NUM"},
		{name: "io-timeout", arg: "DURATION"},
		{name: "threshold", arg: "LIST"},
		{name: "threshold-abort", arg: "GRACE"},
		{name: "warmup", arg: "NUM"},
		{name: "wait-events", arg: "INTERVAL"},
		{name: "group", arg: "NAME"},
		{name: "stage", arg: "SPEC"},
	}},
}

// helpColumn is where descriptions start, as in pgbench's usage().
const helpColumn = 27

// usage writes --help in pgbench's layout: a section per kind of option,
// each option with its short form, its argument, and its description
// (on the next line when the option is too wide).
func usage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, "gbench is a benchmarking tool for PostgreSQL and Redis-protocol servers,\ncompatible with pgbench.\n\n")
	fmt.Fprint(w, "Usage:\n  gbench [OPTION]... [DBNAME]\n  gbench merge FILE.json...\n  gbench report FILE.json\n"+
		"  gbench report --compare BEFORE.json AFTER.json\n"+
		"  gbench matrix [--plan NAME|FILE.toml] [OPTION]...\n  gbench plans list|show|extract ...\n  gbench curve [OPTION]... -- GBENCH-ARGS\n"+
		"  gbench slo --slo OBJECTIVE [OPTION]... -- GBENCH-ARGS\n  gbench ab [OPTION]... -- ARGS-A [--vs ARGS-B]\n"+
		"  gbench sandbox [OPTION]... [-- GBENCH-ARGS]\n"+
		"  gbench workloads list|show|extract|load|drop ...\n")
	for _, s := range helpSections {
		fmt.Fprintf(w, "\n%s:\n", s.title)
		for _, h := range s.options {
			f := fs.Lookup(h.name)
			left := "  "
			switch {
			case h.name == "help":
				left += "-?, "
			case f.Shorthand != "":
				left += "-" + f.Shorthand + ", "
			}
			left += "--" + f.Name
			switch {
			case h.arg != "" && optionalArg(f):
				left += "[=" + h.arg + "]"
			case h.arg != "":
				left += "=" + h.arg
			}
			desc := h.usage
			if desc == "" {
				desc = f.Usage
			}
			desc = strings.ReplaceAll(desc, "\n", "\n"+strings.Repeat(" ", helpColumn))
			if len(left) < helpColumn {
				fmt.Fprintf(w, "%-*s%s\n", helpColumn, left, desc)
			} else {
				fmt.Fprintf(w, "%s\n%*s%s\n", left, helpColumn, "", desc)
			}
		}
	}
	fmt.Fprint(w, "\nReport bugs to <https://github.com/gbench/gbench/issues>.\n")
	fmt.Fprint(w, "gbench home page: <https://github.com/gbench/gbench>\n")
}
