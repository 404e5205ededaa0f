package main

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
)

// FuzzArgs feeds command lines (arguments separated by NUL bytes, which no
// argument can hold) to pgbench-mode option parsing and to the checks that
// turn options into an engine.Config, without connecting anywhere. Every
// outcome is an exit-1 usage error or a help/list answer, never a panic;
// parsing is deterministic; the options, written back as a canonical
// command line, parse to the same options and the same checks' outcome;
// and a Config that passes the checks is sound (at least one client, no
// more threads than clients, finite positive rates and limits, percentiles
// in (0, 100]). Seeds are in testdata/fuzz/FuzzArgs.
func FuzzArgs(f *testing.F) {
	for _, args := range [][]string{
		{"-c", "4", "-j", "2", "-T", "10", "-M", "prepared", "-f", "testdata/select1.sql@3", "db"},
		{"-n", "-t", "5", "-S", "-N", "-b", "tpcb@2", "-D", "x=1", "-Dy=two", "--random-seed=42"},
		{"-R", "100", "-L", "5", "--max-tries=3", "-P", "1", "--progress-timestamp", "-r", "--failures-detailed"},
		{"-l", "--sampling-rate=0.5", "--log-prefix=p", "-T", "4", "--aggregate-interval", "2"},
		{"-i", "-s", "10", "-F", "90", "-I", "dtGvp", "--partitions=4", "--partition-method=hash", "--foreign-keys"},
		{"--percentiles=50,99.9", "--json=-", "--hdr-log=h.log", "-h", "127.0.0.1", "-p", "5432", "-U", "u"},
		{"--cl=3", "--tran", "2", "-Cv", "--exit-on-abort", "--verbose-errors", "-d", "host=h dbname=d"},
		{"-b", "list"}, {"--show-script=select-only"}, {"-?"}, {"-V"}, {"--", "-c", "x"},
		{"-f", "testdata/custom.sql", "--resp=redis://:pw@h:1/2?protocol=3", "postgres://u:pw@h/db"},
		{"-R", "nan"}, {"--percentiles=nan"}, {"-c", "2147483648"}, {"--max-tries=0"},
		{"--worker", "1/4", "-j", "4", "-c", "8", "--run-id", "r", "--start-at", "2030-01-01T00:00:00.5+02:00", "--start-timeout", "5", "--metrics-addr", ":9090"},
		{"--worker=0/2", "-c", "2", "-j", "2", "--start-at=1893456000.25"}, {"--worker", "3/2"}, {"--start-at", "-1"},
	} {
		f.Add(strings.Join(args, "\x00"))
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		if len(args) > 64 || strings.Contains(line, "/dev/") || strings.Contains(line, "/proc/") {
			return // keep runs short; never read endless files
		}
		o, fs, err := checkArgs(args)
		if err != nil || o == nil {
			return
		}
		again, _, err2 := checkArgs(canonicalArgs(o, fs))
		if err2 != nil && !isCheckError(err2) {
			t.Fatalf("%q: canonical command line %q: %v", args, canonicalArgs(o, fs), err2)
		}
		if again == nil || !sameOptions(o, again) || errText(err) != errText(err2) {
			t.Fatalf("%q parses as\n%+v\ncanonical %q parses as\n%+v (%v)", args, o, canonicalArgs(o, fs), again, err2)
		}
	})
}

// checkError marks an error of the checks after parsing, whose options
// are still worth comparing.
type checkError struct{ err error }

func (e *checkError) Error() string { return e.err.Error() }

func isCheckError(err error) bool {
	var ce *checkError
	return errors.As(err, &ce)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// fuzzEnv is a fixed environment: no variables, an empty stdin, a fixed
// clock.
func fuzzEnv() *Env {
	return &Env{
		Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
		Getenv: func(string) string { return "" },
		Now:    func() time.Time { return time.Unix(1700000000, 0) },
	}
}

// checkArgs runs what runPgbench does before connecting, twice, and
// checks that both runs agree and that the outcome is sound. It returns
// the options when parsing succeeded (with a *checkError when a later
// check refused them), nil options otherwise.
func checkArgs(args []string) (*options, *pflag.FlagSet, error) {
	o, fs, err := validateArgs(args)
	o2, _, err2 := validateArgs(args)
	if errText(err) != errText(err2) || (o == nil) != (o2 == nil) || o != nil && !sameOptions(o, o2) {
		panic("not deterministic: " + strconv.Quote(strings.Join(args, " ")) + ": " + errText(err) + " / " + errText(err2))
	}
	return o, fs, err
}

// validateArgs is runPgbench up to the connection: parsing, pgbench's
// checks in its order, then the benchmark's Config (or, with -i, the
// connection settings). It panics on an outcome runPgbench would not
// report as exit status 0 or 1, or on an unsound Config.
func validateArgs(args []string) (*options, *pflag.FlagSet, error) {
	env := fuzzEnv()
	o, fs, rest, err := parseArgs(env, args)
	var ee *earlyExit
	switch {
	case errors.As(err, &ee):
		return nil, nil, err
	case err != nil:
		mustUsage(args, err)
		return nil, nil, err
	case o.help || o.version:
		return o, fs, nil
	}
	if len(rest) > 0 && o.dbname == "" {
		o.dbname, rest = rest[0], rest[1:]
	}
	err = pgbenchChecks(o, fs, rest)
	if err == nil && o.initialize {
		_, err = pgConfig(o)
	}
	if err == nil && !o.initialize {
		var b *benchSetup
		if b, err = prepareBench(env, o, fs); err == nil {
			checkConfig(args, b)
		}
	}
	if err != nil {
		mustUsage(args, err)
		return o, fs, &checkError{err}
	}
	return o, fs, nil
}

// pgbenchChecks are runPgbench's checks between parsing and running.
func pgbenchChecks(o *options, fs *pflag.FlagSet, rest []string) error {
	switch {
	case !o.initialize && totalWeight(o) == 0:
		return usagef("total script weight must not be zero")
	case len(rest) > 0:
		return &usageError{msg: "too many command-line arguments (first is \"" + rest[0] + "\")", hint: true}
	}
	return checkModes(o, fs)
}

// mustUsage panics unless err is an invalid-input error with a message.
func mustUsage(args []string, err error) {
	var ue *usageError
	if !errors.As(err, &ue) || strings.TrimSpace(ue.msg) == "" {
		panic("command line " + strconv.Quote(strings.Join(args, " ")) + ": error of type " + reflect.TypeOf(err).String() + ": " + err.Error())
	}
}

// checkConfig panics when a Config that passed every check is unsound.
func checkConfig(args []string, b *benchSetup) {
	c := b.cfg
	bad := func(what string) {
		panic("command line " + strconv.Quote(strings.Join(args, " ")) + " gives a Config with " + what)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Program == nil:
		bad("no program")
	case c.Clients < 1 || c.Threads < 1 || c.Threads > c.Clients:
		bad("clients " + strconv.Itoa(c.Clients) + ", threads " + strconv.Itoa(c.Threads))
	case (c.Transactions > 0) == (c.Duration > 0) || c.Transactions < 0 || c.Duration < 0:
		bad("both or neither of -t and -T")
	case !finite(c.Rate) || c.Rate < 0:
		bad("rate " + strconv.FormatFloat(c.Rate, 'g', -1, 64))
	case c.LatencyLimit < 0 || c.Progress < 0 || c.MaxTries < 0 || c.Scale < 1:
		bad("a negative limit")
	case !(c.SamplingRate >= 0 && c.SamplingRate <= 1):
		bad("sampling rate " + strconv.FormatFloat(c.SamplingRate, 'g', -1, 64))
	case c.Program.HasSQL != (c.SQL != nil) || c.Program.HasRESP != (c.RESP != nil):
		bad("connectors that do not match the program")
	}
	for _, p := range b.percentiles {
		if !(p > 0 && p <= 100) {
			bad("percentile " + strconv.FormatFloat(p, 'g', -1, 64))
		}
	}
	for _, d := range c.Defines {
		if !script.ValidVarName([]byte(d.Name)) {
			bad("define " + strconv.Quote(d.Name))
		}
	}
	var _ engine.Config = *c
}

// canonicalArgs writes parsed options back as a command line: every
// option that was set, spelled --name=value, scripts and -D in order.
func canonicalArgs(o *options, fs *pflag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "builtin", "file", "skip-some-updates", "select-only", "define":
			return // written from o below, in order
		case "rate":
			out = append(out, "--rate="+strconv.FormatFloat(o.rate, 'g', -1, 64))
		case "latency-limit":
			out = append(out, "--latency-limit="+strconv.FormatFloat(o.latencyLimit, 'g', -1, 64))
		case "sampling-rate":
			out = append(out, "--sampling-rate="+strconv.FormatFloat(o.samplingRate, 'g', -1, 64))
		case "max-tries":
			out = append(out, "--max-tries="+strconv.Itoa(o.maxTries))
		case "random-seed":
			out = append(out, "--random-seed="+strconv.FormatUint(o.seed, 10))
		default:
			if takesNoArg(f) {
				out = append(out, "--"+f.Name)
			} else {
				out = append(out, "--"+f.Name+"="+f.Value.String())
			}
		}
	})
	for _, s := range o.scripts {
		opt := "--file="
		if s.builtin {
			opt = "--builtin="
		}
		out = append(out, opt+s.name+"@"+strconv.Itoa(s.weight))
	}
	for _, d := range o.defines {
		out = append(out, "--define="+d.name+"="+d.value)
	}
	if o.dbname != "" && !fs.Changed("dbname") {
		out = append(out, "--dbname="+o.dbname)
	}
	return out
}

// sameOptions compares parsed options, scripts by their parse.
func sameOptions(a, b *options) bool {
	x, y := *a, *b
	x.env, y.env = nil, nil
	x.args, y.args = nil, nil // the command line as typed, recorded for the run's context
	if !x.seedSet && !y.seedSet {
		x.seed, y.seed = 0, 0
	}
	return reflect.DeepEqual(x, y)
}
