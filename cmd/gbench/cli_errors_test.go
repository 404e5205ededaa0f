package main

import (
	"strings"
	"testing"
)

// cliCase is one command line that pgbench 15 refuses (or, for a few,
// answers without benchmarking).
type cliCase struct {
	args []string
	// code is pgbench 15's exit status, which gbench must return too.
	code int
	// allow, when set, says why gbench differs from pgbench on purpose;
	// gcode is then gbench's exit status and the messages are not compared.
	allow string
	gcode int
}

// cliCases are checked against real pgbench: same exit status, and
// gbench's stderr, first line first, equals pgbench's with "pgbench"
// spelled "gbench". The environment points libpq and pgx at a closed
// port, so that a command line that wrongly passes validation fails to
// connect instead of touching a real database.
var cliCases = []cliCase{
	// Integers are read like option_parse_int: strtol plus trailing blanks.
	{args: []string{"-c", "x"}, code: 1},                   // not a number
	{args: []string{"-c", "0"}, code: 1},                   // below the range
	{args: []string{"-c", "99999999999"}, code: 1},         // beyond int
	{args: []string{"-c", ""}, code: 1},                    // empty reads as 0: range error, not "invalid value"
	{args: []string{"-c", "  "}, code: 1},                  // blanks read as 0 as well
	{args: []string{"--client="}, code: 1},                 // empty value after '='
	{args: []string{"-t", " 3x"}, code: 1},                 // trailing garbage
	{args: []string{"-j", "1.5"}, code: 1},                 // not an integer
	{args: []string{"-j", "0"}, code: 1},                   // jobs range
	{args: []string{"-t", "0"}, code: 1},                   // transactions range
	{args: []string{"-T", "-1"}, code: 1},                  // time range
	{args: []string{"-P", "0"}, code: 1},                   // progress range
	{args: []string{"-s", "0"}, code: 1},                   // scale range
	{args: []string{"-i", "-F", "101"}, code: 1},           // fillfactor range
	{args: []string{"-i", "--partitions", "-1"}, code: 1},  // partitions range
	{args: []string{"--aggregate-interval", "0"}, code: 1}, // aggregate-interval range

	// Options getopt_long does not know, or misused.
	{args: []string{"-Z"}, code: 1},                               // unknown short option: getopt's message, no "error:"
	{args: []string{"--foo"}, code: 1},                            // unknown long option
	{args: []string{"--foo=bar"}, code: 1},                        // unknown long option with a value
	{args: []string{"--no-vacuum=yes"}, code: 1},                  // a switch given a value
	{args: []string{"--no-vac=1"}, code: 1},                       // ... also through an abbreviation
	{args: []string{"-i", "--part", "2"}, code: 1},                // ambiguous abbreviation
	{args: []string{"--p", "2"}, code: 1},                         // ambiguous among pgbench's options only
	{args: []string{"--cli", "2", "--transact=1", "-Z"}, code: 1}, // abbreviations accepted, then -Z
	{args: []string{"-c"}, code: 1},                               // missing argument, short
	{args: []string{"--client"}, code: 1},                         // missing argument, long
	{args: []string{"-f"}, code: 1},                               // missing script file name

	// Initialization and benchmarking options do not mix.
	{args: []string{"-t", "10", "-T", "1"}, code: 1},                                   // -t with -T
	{args: []string{"-i", "-c", "2"}, code: 1},                                         // bench option with -i
	{args: []string{"-i", "-S"}, code: 1},                                              // builtin with -i
	{args: []string{"-i", "-D", "a=1"}, code: 1},                                       // -D with -i
	{args: []string{"-i", "--max-tries", "2"}, code: 1},                                // retries with -i
	{args: []string{"-F", "50"}, code: 1},                                              // fillfactor when benchmarking
	{args: []string{"--foreign-keys"}, code: 1},                                        // init-only switch
	{args: []string{"-I", "dtg"}, code: 1},                                             // init steps when benchmarking
	{args: []string{"--partitions", "2"}, code: 1},                                     // partitions when benchmarking
	{args: []string{"-q"}, code: 1},                                                    // quiet is init-only
	{args: []string{"-i", "--partition-method", "hash"}, code: 1},                      // method without partitions
	{args: []string{"-i", "--partitions", "2", "--partition-method", "list"}, code: 1}, // unknown method
	{args: []string{"-i", "-I", "dtx"}, code: 1},                                       // unknown init step
	{args: []string{"-i", "-I", ""}, code: 1},                                          // no init step

	// Values with a syntax of their own.
	{args: []string{"-M", "bogus"}, code: 1},                     // unknown query mode
	{args: []string{"-M", "Simple"}, code: 1},                    // modes are case-sensitive
	{args: []string{"-R", "0"}, code: 1},                         // rate must be positive
	{args: []string{"-R", "abc"}, code: 1},                       // atof("abc") is 0
	{args: []string{"-R", "-5"}, code: 1},                        // negative rate
	{args: []string{"-L", "0"}, code: 1},                         // latency limit must be positive
	{args: []string{"-L", "x"}, code: 1},                         // not a number
	{args: []string{"--sampling-rate", "0"}, code: 1},            // zero sampling rate
	{args: []string{"--sampling-rate", "1.5"}, code: 1},          // above 1
	{args: []string{"--max-tries", "-1"}, code: 1},               // negative tries
	{args: []string{"--max-tries", "abc"}, code: 1},              // atoi gives 0: unlimited, refused without -L or -T
	{args: []string{"--random-seed", "foo"}, code: 1},            // not a seed
	{args: []string{"--random-seed", "1x"}, code: 1},             // trailing garbage in a seed
	{args: []string{"--random-seed", "foo", "-c", "x"}, code: 1}, // the seed is checked where it appears
	{args: []string{"--random-seed", "1", "-i"}, code: 1},        // ... and announced there, before the mode error
	{args: []string{"-D", "x"}, code: 1},                         // -D without '='
	{args: []string{"-D", "=1"}, code: 1},                        // empty variable name
	{args: []string{"-D", "x="}, code: 1},                        // empty value
	{args: []string{"-D", "1x=3"}, code: 1},                      // invalid variable name

	// Scripts: weights, builtins, files, in the order they appear.
	{args: []string{"-f", "x@y"}, code: 1},                                 // weight not a number
	{args: []string{"-f", "x@"}, code: 1},                                  // empty weight
	{args: []string{"-b", "select-only@-1"}, code: 1},                      // negative weight
	{args: []string{"-b", "select-only@3000000000"}, code: 1},              // weight above INT_MAX
	{args: []string{"-b", "select-only@99999999999999999999"}, code: 1},    // weight beyond long: strtol's ERANGE
	{args: []string{"-b", "select-only@+07", "-Z"}, code: 1},               // a signed, zero-padded weight is fine: -Z is the error
	{args: []string{"-b", "foo"}, code: 1},                                 // unknown builtin
	{args: []string{"-b", "s"}, code: 1},                                   // ambiguous builtin prefix
	{args: []string{"-b", "list", "-Z"}, code: 0},                          // -b list answers at once
	{args: []string{"--show-script=foo"}, code: 1},                         // unknown builtin to show
	{args: []string{"--show-script=se", "-Z"}, code: 0},                    // --show-script answers at once
	{args: []string{"-f", "testdata/nonexistent.sql"}, code: 1},            // missing file: strerror's words
	{args: []string{"-f", "testdata"}, code: 1},                            // a directory opens but cannot be read
	{args: []string{"-f", "testdata/nonexistent.sql", "-c", "x"}, code: 1}, // scripts load where they appear
	{args: []string{"-b", "foo", "-c", "x"}, code: 1},                      // builtins too
	{args: []string{"-i", "-f", "testdata/nonexistent.sql"}, code: 1},      // before the mode check
	{args: []string{"-b", "select-only@0"}, code: 1},                       // total weight zero
	{args: []string{"-b", "select-only@0", "a", "b"}, code: 1},             // weight is checked before extra arguments
	{args: []string{"a", "b"}, code: 1},                                    // too many arguments

	// Checks between options, in pgbench's order.
	{args: []string{"--sampling-rate", "0.5"}, code: 1},                                    // sampling without -l
	{args: []string{"-l", "--sampling-rate", "0.5", "--aggregate-interval", "1"}, code: 1}, // sampling with aggregation
	{args: []string{"--aggregate-interval", "1"}, code: 1},                                 // aggregation without -l
	{args: []string{"--log-prefix", "x"}, code: 1},                                         // prefix without -l
	{args: []string{"-l", "--aggregate-interval", "3", "-T", "2"}, code: 1},                // aggregation longer than the run
	{args: []string{"-l", "--aggregate-interval", "2", "-T", "3"}, code: 1},                // duration not a multiple
	{args: []string{"--progress-timestamp"}, code: 1},                                      // timestamps without -P
	{args: []string{"--max-tries", "0"}, code: 1},                                          // unlimited tries without -L or -T
	{args: []string{"-t", "1", "-S"}, code: 1},                                             // the server is unreachable
	{args: []string{"-i"}, code: 1},                                                        // ... for initialization too

	// Intended differences.
	{args: []string{"-c", "2", "--help"}, code: 1, gcode: 0,
		allow: "gbench takes --help anywhere; pgbench only as the first argument"},
	{args: []string{"-c", "2", "-V"}, code: 1, gcode: 0,
		allow: "gbench takes -V anywhere; pgbench only as the first argument"},
	{args: []string{"-d"}, code: 1, gcode: 1,
		allow: "gbench's -d is --dbname (as in PostgreSQL 17), pgbench 15's is --debug"},
	{args: []string{"--exit-on-abort", "-Z"}, code: 1, gcode: 1,
		allow: "gbench has PostgreSQL 17's --exit-on-abort, which pgbench 15 does not know"},
	{args: []string{"-f", "testdata/syntax_error.sql"}, code: 1, gcode: 1,
		allow: "script errors carry pgbench's words after file:line:col (pgbench: file:line), then gbench's explanation and a caret"},
	{args: []string{"-f", "testdata/empty.sql"}, code: 1, gcode: 1,
		allow: "pgbench's words, then gbench's explanation of why the script is empty"},
}

// TestCLIErrorsMatchPgbench runs every cliCases row through gbench and
// through pgbench 15.
func TestCLIErrorsMatchPgbench(t *testing.T) {
	t.Setenv("PGHOST", "127.0.0.1")
	t.Setenv("PGPORT", "1")
	t.Setenv("PGUSER", "postgres")
	t.Setenv("PGDATABASE", "gbench_nowhere")
	t.Setenv("PGCONNECT_TIMEOUT", "5")
	for _, c := range cliCases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			g := runGbench(c.args...)
			want := c.code
			if c.allow != "" {
				want = c.gcode
			}
			if g.code != want {
				t.Errorf("gbench exit status %d, want %d\nstderr:\n%s", g.code, want, g.stderr)
			}
			// gbench's side is checked; the comparison needs pgbench 15
			// (a visible skip without it, a failure under
			// GBENCH_REQUIRE_SERVICES=1).
			p := execPgbench(t, needPgbench(t), c.args...)
			if p.code != c.code {
				t.Errorf("the table is wrong: pgbench exits with %d, not %d\nstderr:\n%s", p.code, c.code, p.stderr)
			}
			if c.allow != "" {
				t.Logf("allowed difference: %s", c.allow)
				return
			}
			if pl, gl := asGbench(firstLine(p.stderr)), firstLine(g.stderr); pl != gl {
				t.Errorf("first stderr line differs\npgbench: %q\ngbench:  %q\nfull gbench stderr:\n%s", pl, gl, g.stderr)
				return
			}
			// The lines after the first (details, hints, lists) match too.
			if pl, gl := asGbenchAll(p.stderr), g.stderr; pl != gl {
				t.Errorf("stderr differs after the first line\npgbench:\n%s\ngbench:\n%s", pl, gl)
			}
		})
	}
}
