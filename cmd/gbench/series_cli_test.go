package main

import (
	"strings"
	"testing"
)

// TestSeriesCommandLineErrors checks the errors of gbench curve, slo and
// ab that come before any connection: status 1 and a message naming the
// problem.
func TestSeriesCommandLineErrors(t *testing.T) {
	script := writeScript(t, "SELECT 1;\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		// nothing to measure
		{[]string{"curve"}, `no gbench command line to measure: give it after "--"`},
		{[]string{"curve", "-f", script}, `unknown shorthand flag: 'f'`},
		// what the curve varies cannot be fixed by the command line
		{[]string{"curve", "--", "-c", "4", "-f", script}, "-c in the command line: give the client counts with --clients"},
		{[]string{"curve", "--rates", "10", "--", "-R", "5", "-f", script}, "--rate in the command line"},
		{[]string{"curve", "--clients", "1,2", "--rates", "10", "--", "-f", script}, "--clients and --rates do not mix"},
		{[]string{"curve", "--clients", "0", "--", "-f", script}, `invalid value "0" for option --clients`},
		{[]string{"curve", "--rates", "fast", "--", "-f", script}, `invalid value "fast" for option --rates`},
		// runs of equal length, one result
		{[]string{"curve", "--", "-t", "10", "-f", script}, "give -T (seconds per run) rather than -t"},
		{[]string{"curve", "--", "-l", "-f", script}, "-l writes a log per run"},
		{[]string{"curve", "--", "--json", "x.json", "-f", script}, "--json is per run"},
		{[]string{"curve", "--", "-i"}, `-i initializes: run "gbench -i" once before "gbench curve"`},
		// the command line's own errors keep gbench's words
		{[]string{"curve", "--", "-f", script, "-j", "x"}, `invalid value "x" for option -j/--jobs`},
		// SLO
		{[]string{"slo", "--", "-f", script}, "gbench slo needs an objective, like --slo 'p99<=5ms'"},
		{[]string{"slo", "--slo", "p99>=5ms", "--", "-f", script}, `invalid objective "p99>=5ms"`},
		{[]string{"slo", "--slo", "p99<=5ms", "--min-rate", "100", "--max-rate", "50", "--", "-f", script}, "--min-rate (100) must be below --max-rate (50)"},
		{[]string{"slo", "--slo", "p99<=5ms", "--", "-R", "100", "-f", script}, "gbench slo chooses the rates"},
		// A/B
		{[]string{"ab", "--set-a", "work_mem", "--", "-f", script}, `invalid value "work_mem" for option --set-a: expected a server setting as NAME=VALUE`},
		{[]string{"ab", "--metric", "p99x", "--", "-f", script}, `invalid metric "p99x"`},
		{[]string{"ab", "--", "-f", script, "-T", "5", "--vs", "-f", script, "-T", "6"}, "A runs for 5s and B for 6s"},
		{[]string{"ab", "--build-a", "/x", "--", "-f", script}, "--build-a and --build-b go together"},
		{[]string{"ab", "--build-a", "/x", "--build-b", "/y", "--", "-f", script, "-h", "db"}, "command line A names a server"},
		{[]string{"ab", "--setup", "x.sql", "--", "-f", script}, "--setup and --init-scale prepare the servers of --build-a and --build-b"},
		{[]string{"ab", "--", "-f", script, "--vs", "-f", "/nonexistent.sql"}, `B: could not open file "/nonexistent.sql"`},
	} {
		o := runGbench(c.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("gbench %q: status %d, stderr\n%s\nwant 1 and %q", c.args, o.code, o.stderr, c.want)
		}
	}
	for _, cmd := range []string{"curve", "slo", "ab"} {
		o := runGbench(cmd, "--help")
		if o.code != exitOK || !strings.Contains(o.stdout, "gbench "+cmd+" ") || !strings.Contains(o.stdout, "--repeats") {
			t.Errorf("gbench %s --help: %d\n%s", cmd, o.code, o.stdout)
		}
	}
}
