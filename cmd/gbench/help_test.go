package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestHelpListsEveryOption: each option defined for the pgbench command
// line has its line in one of --help's sections, so that a new option
// cannot be left out of the help.
func TestHelpListsEveryOption(t *testing.T) {
	fs := pflag.NewFlagSet("gbench", pflag.ContinueOnError)
	defineFlags(fs, &options{})
	listed := map[string]bool{}
	for _, s := range helpSections {
		for _, h := range s.options {
			if fs.Lookup(h.name) == nil {
				t.Errorf("--help lists --%s, which is not an option", h.name)
			}
			listed[h.name] = true
		}
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if !listed[f.Name] {
			t.Errorf("--%s is not in --help", f.Name)
		}
	})
}

// TestVersionForm: -V prints pgbench's "NAME (PostgreSQL) VERSION", which
// scripts parse for the version, then gbench's own.
func TestVersionForm(t *testing.T) {
	out := runGbench("-V")
	want := "gbench (PostgreSQL) 15 (gbench " + version + ")\n"
	if out.code != 0 || out.stdout != want || out.stderr != "" {
		t.Errorf("-V: exit %d, stdout %q, stderr %q; want stdout %q", out.code, out.stdout, out.stderr, want)
	}
	if !strings.HasPrefix(out.stdout, "gbench (PostgreSQL) ") {
		t.Errorf("-V does not start like pgbench's: %q", out.stdout)
	}
}

// TestHelpDefaultsOnce: no option's help line says "(default" twice (the
// text's own "(default N)" and pflag's, or a text that words its default
// and pflag's line after it), in any subcommand's --help.
func TestHelpDefaultsOnce(t *testing.T) {
	cmds := [][]string{{"--help"}, {"workloads", "load", "--help"}}
	for name := range subcommands() {
		cmds = append(cmds, []string{name, "--help"})
	}
	for _, args := range cmds {
		out := runGbench(args...)
		if !strings.Contains(out.stdout+out.stderr, "--") {
			t.Errorf("gbench %s: no options listed:\n%s%s", strings.Join(args, " "), out.stdout, out.stderr)
		}
		for _, l := range strings.Split(out.stdout+out.stderr, "\n") {
			if strings.Count(l, "(default") > 1 {
				t.Errorf("gbench %s: %s", strings.Join(args, " "), l)
			}
		}
	}
}
