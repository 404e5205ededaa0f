package main

// The cases of PostgreSQL's own pgbench tests (src/bin/pgbench/t,
// 001_pgbench_with_server.pl and 002_pgbench_no_server.pl of the PG16
// tree), carried as data in testdata/pgbenchtap and run against gbench
// and, when it is installed, against pgbench 15. The data is ours, written
// from the behaviours those tests check: a command line, script files, the
// exit status and patterns for stdout and stderr.
//
// A case passes when the exit status is the expected one and every
// pattern matches (or, for the "-not" keys, does not). Each run logs how
// many cases pgbench 15 passes and how many of those gbench passes. A case
// gbench fails is an error unless pgbench 15 fails it too; a case pgbench
// 15 passes or fails against what the data says is an error as well, so a
// change on either side shows up the day it happens.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"text/template"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gbench/gbench/internal/testsrv"
)

// tapCase is one case of a testdata/pgbenchtap file.
type tapCase struct {
	name   string
	line   int
	args   []string // options before the script files
	after  []string // arguments after the script files
	env    [][2]string
	code   int
	checks []tapCheck
	files  []tapFile
	setup  []string // SQL run on the case's database first
	logs   *tapLogs
	// query is SQL run on the case's database after it; its rows, printed
	// with fmt's %v, must match result.
	query  string
	result *regexp.Regexp
	// needs names what the case cannot run without ("tablespace").
	needs string
	// pgbench15 says why pgbench 15 fails the case; "" when it passes.
	pgbench15 string
}

// tapCheck is one pattern on stdout or stderr.
type tapCheck struct {
	stream string // "stdout" or "stderr"
	re     *regexp.Regexp
	not    bool
	// repeated: some text the pattern matches occurs twice (Go's regexp
	// has no back-references).
	repeated bool
}

// tapFile is a script written to the case's directory and passed with -f.
type tapFile struct {
	name string // file name, possibly with "@weight"
	body string
}

// tapLogs checks the -l files a case leaves: how many there are, how many
// lines each has and the form of every line.
type tapLogs struct {
	prefix   string
	files    int
	min, max int
	line     *regexp.Regexp
}

// tapVars are the values a case file's template can use.
type tapVars struct {
	Dir        string // the run's scratch directory, where scripts go
	Tablespace string // a tablespace the with-server cases may use
}

// tapFuncs are the template functions of a case file.
var tapFuncs = template.FuncMap{
	// repeat returns n copies of s joined by sep.
	"repeat": func(n int, s, sep string) string {
		return strings.Join(slices.Repeat([]string{s}, n), sep)
	},
	// numbered returns format applied to 1..n, joined by sep.
	"numbered": func(n int, format, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(format, i+1)
		}
		return strings.Join(parts, sep)
	},
}

// readTapCases reads a case file, expanded as a text/template with v.
//
// Format: "== NAME" starts a case; then "key: value" lines (args, after,
// env, exit, stdout, stderr, sql, logs, query, result, needs, pgbench15; the
// stream keys take a regexp, with a suffix "-not" it must not match, with
// "-repeated" some text it matches must occur twice); then any number of script files, each started by
// ">>> FILE[@WEIGHT]" and running to the next "==" or ">>>" line (the
// blank and "#" lines that end it are layout, not script). Lines starting with "#" between cases are comments.
func readTapCases(path string, v tapVars) ([]*tapCase, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New(filepath.Base(path)).Funcs(tapFuncs).Parse(string(raw))
	if err != nil {
		return nil, err
	}
	var text bytes.Buffer
	if err := tmpl.Execute(&text, v); err != nil {
		return nil, err
	}
	var cases []*tapCase
	var c *tapCase
	var f *tapFile
	sc := bufio.NewScanner(&text)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "== "):
			c = &tapCase{name: strings.TrimSpace(l[3:]), line: n}
			f = nil
			cases = append(cases, c)
		case c == nil && (l == "" || strings.HasPrefix(l, "#")):
		case c == nil:
			return nil, fmt.Errorf("%s:%d: text before the first case", path, n)
		case strings.HasPrefix(l, ">>> "):
			c.files = append(c.files, tapFile{name: strings.TrimSpace(l[4:])})
			f = &c.files[len(c.files)-1]
		case f != nil:
			f.body += l + "\n"
		case l == "" || strings.HasPrefix(l, "#"):
		default:
			if err := c.set(l); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, c := range cases {
		for i := range c.files {
			c.files[i].body = trimLayout(c.files[i].body)
		}
	}
	return cases, nil
}

// trimLayout drops the blank and "#" lines that end a script body: they
// separate it from the next case or section of the case file.
func trimLayout(body string) string {
	ls := lines(body)
	for len(ls) > 0 && (strings.TrimSpace(ls[len(ls)-1]) == "" || strings.HasPrefix(ls[len(ls)-1], "#")) {
		ls = ls[:len(ls)-1]
	}
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// set applies one "key: value" line to the case.
func (c *tapCase) set(l string) error {
	key, val, ok := strings.Cut(l, ": ")
	if !ok {
		key, val = strings.TrimSuffix(l, ":"), ""
	}
	var err error
	switch key {
	case "args":
		c.args = strings.Fields(val)
	case "after":
		c.after = strings.Fields(val)
	case "env":
		name, value, _ := strings.Cut(val, "=")
		c.env = append(c.env, [2]string{name, value})
	case "exit":
		c.code, err = strconv.Atoi(val)
	case "stdout", "stderr", "stdout-not", "stderr-not", "stdout-repeated", "stderr-repeated":
		var re *regexp.Regexp
		re, err = regexp.Compile(val)
		stream, not := strings.CutSuffix(key, "-not")
		stream, repeated := strings.CutSuffix(stream, "-repeated")
		c.checks = append(c.checks, tapCheck{stream: stream, re: re, not: not, repeated: repeated})
	case "sql":
		c.setup = append(c.setup, val)
	case "logs":
		c.logs, err = parseTapLogs(val)
	case "query":
		c.query = val
	case "result":
		c.result, err = regexp.Compile(val)
	case "pgbench15":
		c.pgbench15 = val
	case "needs":
		c.needs = val
	default:
		err = fmt.Errorf("unknown key %q", key)
	}
	return err
}

// parseTapLogs reads "PREFIX FILES MIN MAX REGEXP".
func parseTapLogs(val string) (*tapLogs, error) {
	f := strings.SplitN(val, " ", 5)
	if len(f) != 5 {
		return nil, fmt.Errorf("logs: want PREFIX FILES MIN MAX REGEXP, got %q", val)
	}
	var n [3]int
	for i := range n {
		v, err := strconv.Atoi(f[i+1])
		if err != nil {
			return nil, fmt.Errorf("logs: %v", err)
		}
		n[i] = v
	}
	re, err := regexp.Compile(f[4])
	if err != nil {
		return nil, err
	}
	return &tapLogs{prefix: f[0], files: n[0], min: n[1], max: n[2], line: re}, nil
}

// commandLine writes the case's scripts to dir and returns its arguments:
// the options, "-f FILE[@W]" per script in order, then the rest.
func (c *tapCase) commandLine(dir string) ([]string, error) {
	args := slices.Clone(c.args)
	for _, f := range c.files {
		path := filepath.Join(dir, f.name)
		base, _, _ := strings.Cut(path, "@")
		if err := os.WriteFile(base, []byte(f.body), 0o644); err != nil {
			return nil, err
		}
		args = append(args, "-f", path)
	}
	return append(args, c.after...), nil
}

// failures lists what an outcome does not meet, nothing when the case
// passes. dir is where the run's -l files went.
func (c *tapCase) failures(o outcome, dir string) []string {
	var why []string
	if o.code != c.code {
		why = append(why, fmt.Sprintf("exit status %d, want %d", o.code, c.code))
	}
	for _, ch := range c.checks {
		out := o.stdout
		if ch.stream == "stderr" {
			out = o.stderr
		}
		switch {
		case ch.repeated && !repeats(ch.re, out):
			why = append(why, fmt.Sprintf("%s has no text matching /%s/ twice", ch.stream, ch.re))
		case ch.repeated:
		case ch.re.MatchString(out) == ch.not:
			verb := "does not match"
			if ch.not {
				verb = "matches"
			}
			why = append(why, fmt.Sprintf("%s %s /%s/", ch.stream, verb, ch.re))
		}
	}
	if c.logs != nil {
		why = append(why, c.logs.check(dir)...)
	}
	return why
}

// repeats reports whether two matches of re in s are the same text.
func repeats(re *regexp.Regexp, s string) bool {
	seen := map[string]bool{}
	for _, m := range re.FindAllString(s, -1) {
		if seen[m] {
			return true
		}
		seen[m] = true
	}
	return false
}

// check verifies the log files of a run.
func (l *tapLogs) check(dir string) []string {
	matches, err := filepath.Glob(filepath.Join(dir, l.prefix+".*"))
	if err != nil {
		return []string{err.Error()}
	}
	name := regexp.MustCompile(`/` + regexp.QuoteMeta(l.prefix) + `\.\d+(\.\d+)?$`)
	var why []string
	if len(matches) != l.files {
		why = append(why, fmt.Sprintf("%d log files, want %d", len(matches), l.files))
	}
	for _, m := range matches {
		if !name.MatchString(m) {
			why = append(why, fmt.Sprintf("log file name %s", m))
		}
		data, err := os.ReadFile(m)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		ls := lines(string(data))
		if len(ls) < l.min || len(ls) > l.max {
			why = append(why, fmt.Sprintf("%s has %d lines, want %d to %d", filepath.Base(m), len(ls), l.min, l.max))
		}
		for _, x := range ls {
			if !l.line.MatchString(x) {
				why = append(why, fmt.Sprintf("%s: line %q does not match /%s/", filepath.Base(m), x, l.line))
				break
			}
		}
		os.Remove(m)
	}
	return why
}

// tapRunner runs one program over a case file's cases in order, each run
// with its own scratch directory and, for server cases, its own database.
type tapRunner struct {
	prog string // "pgbench" or "gbench"
	// run runs the program with env added to the process's environment.
	run func(env [][2]string, args ...string) outcome
	// inProcess: run reads the process's environment, which the caller
	// sets (pgx reads PGHOST and the rest from there).
	inProcess bool
	dir       string
	db        *pgconn.Config // nil without a server
	env       [][2]string    // what every case gets
}

// tapRun is one runner's run of one case.
type tapRun struct {
	r    *tapRunner
	c    *tapCase
	args []string
	env  [][2]string
	out  outcome
	why  []string
}

// prepare runs the case's setup SQL and writes its scripts.
func (x *tapRun) prepare() error {
	for _, sql := range x.c.setup {
		if _, err := query(x.r.db, sql); err != nil {
			return fmt.Errorf("setup %q: %v", sql, err)
		}
	}
	x.env = append(slices.Clone(x.r.env), x.c.env...)
	var err error
	x.args, err = x.c.commandLine(x.r.dir)
	return err
}

// check records what the run's outcome and its database do not meet.
func (x *tapRun) check() {
	c := x.c
	x.why = c.failures(x.out, x.r.dir)
	if c.query != "" {
		rows, err := query(x.r.db, c.query)
		text := fmt.Sprint(rows)
		switch {
		case err != nil:
			x.why = append(x.why, fmt.Sprintf("query %q: %v", c.query, err))
		case !c.result.MatchString(text):
			x.why = append(x.why, fmt.Sprintf("query %q gave %s, want /%s/", c.query, text, c.result))
		}
	}
	if len(x.why) > 0 {
		x.why = append(x.why, fmt.Sprintf("command: %s %s\n--- stdout:\n%s--- stderr:\n%s",
			x.r.prog, strings.Join(x.args, " "), clip(x.out.stdout), clip(x.out.stderr)))
	}
}

// clip keeps the start and the end of long output.
func clip(s string) string {
	const max = 3000
	if len(s) <= max {
		return s
	}
	return s[:max/2] + "\n[...]\n" + s[len(s)-max/2:]
}

// tapTally counts the cases each program passes.
type tapTally struct {
	cases, skipped, pgbench, gbench, gbenchOfPgbench int
	pgbenchRan                                       bool
}

func (ty tapTally) String() string {
	s := fmt.Sprintf("gbench passes %d of %d cases (pgbench 15 not run)", ty.gbench, ty.cases)
	if ty.pgbenchRan {
		s = fmt.Sprintf("pgbench 15 passes %d of %d cases; gbench passes %d of those %d (%d of all %d)",
			ty.pgbench, ty.cases, ty.gbenchOfPgbench, ty.pgbench, ty.gbench, ty.cases)
	}
	if ty.skipped > 0 {
		s += fmt.Sprintf("; %d skipped", ty.skipped)
	}
	return s
}

// count adds one case's results to the tally and reports what differs
// from the data: gbench failing a case pgbench 15 passes (or, without
// pgbench, a case the data says pgbench 15 passes), and pgbench 15 passing
// or failing against what the data says.
func (ty *tapTally) count(t *testing.T, file string, c *tapCase, p, g *tapRun) {
	t.Helper()
	pgPassed := p != nil && len(p.why) == 0
	if pgPassed {
		ty.pgbench++
	}
	switch {
	case len(g.why) == 0:
		ty.gbench++
		if pgPassed {
			ty.gbenchOfPgbench++
		}
	case pgPassed || (p == nil && c.pgbench15 == ""):
		t.Errorf("%s:%d: gbench fails:\n%s", file, c.line, strings.Join(g.why, "\n"))
	default:
		t.Logf("gbench fails, as pgbench 15 does:\n%s", strings.Join(g.why, "\n"))
	}
	switch {
	case p == nil:
	case pgPassed && c.pgbench15 != "":
		t.Errorf("%s:%d: pgbench 15 passes, but the data says it fails (%s)", file, c.line, c.pgbench15)
	case !pgPassed && c.pgbench15 == "":
		t.Errorf("%s:%d: pgbench 15 fails:\n%s", file, c.line, strings.Join(p.why, "\n"))
	case !pgPassed:
		t.Logf("pgbench 15 fails, as expected (%s)", c.pgbench15)
	}
}

// runTap runs every case of file with each runner (pgbench's first, when
// there is one) and counts the passes.
func runTap(t *testing.T, file string, runners []*tapRunner, v map[string]tapVars) tapTally {
	var ty tapTally
	perProg := map[string][]*tapCase{}
	for _, r := range runners {
		cases, err := readTapCases(file, v[r.prog])
		if err != nil {
			t.Fatal(err)
		}
		perProg[r.prog] = cases
		ty.pgbenchRan = ty.pgbenchRan || r.prog == "pgbench"
	}
	cases := perProg["gbench"]
	ty.cases = len(cases)
	for i, c := range cases {
		t.Run(fmt.Sprintf("%03d %s", i+1, c.name), func(t *testing.T) {
			if c.needs == "tablespace" && v["gbench"].Tablespace == "" {
				ty.skipped++
				testsrv.Need(t, "no tablespace could be created (see tapTablespace's log line)")
			}
			runs := map[string]*tapRun{}
			for _, r := range runners {
				x := &tapRun{r: r, c: perProg[r.prog][i]}
				if err := x.prepare(); err != nil {
					t.Fatal(err)
				}
				runs[r.prog] = x
				if r.inProcess {
					for _, kv := range x.env {
						t.Setenv(kv[0], kv[1])
					}
				}
			}
			// Both programs run at the same time, on databases of their own.
			var wg sync.WaitGroup
			for _, x := range runs {
				wg.Go(func() { x.out = x.r.run(x.env, x.args...) })
			}
			wg.Wait()
			for _, x := range runs {
				x.check()
			}
			ty.count(t, file, c, runs["pgbench"], runs["gbench"])
		})
	}
	return ty
}

// tapRunners returns pgbench 15's runner and gbench's, each with a
// scratch directory of its own.
func tapRunners(t *testing.T) ([]*tapRunner, map[string]tapVars) {
	runners := []*tapRunner{}
	vars := map[string]tapVars{}
	pg := needPgbench(t)
	runners = append(runners, &tapRunner{prog: "pgbench", run: func(env [][2]string, args ...string) outcome {
		return execPgbenchEnv(pg, env, args...)
	}})
	// gbench runs in-process: runTap sets its environment.
	runners = append(runners, &tapRunner{prog: "gbench", inProcess: true,
		run: func(_ [][2]string, args ...string) outcome { return runGbench(args...) }})
	for _, r := range runners {
		r.dir = filepath.Join(t.TempDir(), r.prog)
		if err := os.Mkdir(r.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		vars[r.prog] = tapVars{Dir: r.dir}
	}
	return runners, vars
}

// TestPgbenchTapNoServer runs the cases of 002_pgbench_no_server.pl:
// option errors, script errors, --help, -V and the builtin listings. The
// environment points at a closed port, so that a command line wrongly
// accepted fails to connect rather than reach a server.
func TestPgbenchTapNoServer(t *testing.T) {
	runners, vars := tapRunners(t)
	for _, r := range runners {
		r.env = [][2]string{{"PGHOST", "127.0.0.1"}, {"PGPORT", "1"}, {"PGUSER", "postgres"},
			{"PGDATABASE", "gbench_nowhere"}, {"PGCONNECT_TIMEOUT", "5"}, {"LC_ALL", "C"}}
	}
	ty := runTap(t, "testdata/pgbenchtap/no_server.txt", runners, vars)
	t.Logf("no_server.txt: %s", ty)
}

// TestPgbenchTapWithServer runs the cases of 001_pgbench_with_server.pl
// against the test server: initialization, builtins, custom scripts,
// expressions, meta-commands, script errors, pipelines, throttling, logs
// and retries. pgbench and gbench each get a database of their own, and
// the cases run in order on it, as the cases build on each other.
func TestPgbenchTapWithServer(t *testing.T) {
	cfg := needServer(t)
	runners, vars := tapRunners(t)
	ts := tapTablespace(t, cfg)
	for _, r := range runners {
		conninfo := scratchDB(t, cfg, "tap_"+r.prog)
		r.db = dbConfig(t, conninfo)
		r.env = [][2]string{{"PGHOST", r.db.Host}, {"PGPORT", strconv.Itoa(int(r.db.Port))},
			{"PGUSER", r.db.User}, {"PGDATABASE", r.db.Database}, {"PGPASSWORD", r.db.Password},
			{"PGOPTIONS", ""}, {"LC_ALL", "C"}}
		v := vars[r.prog]
		v.Tablespace = ts
		vars[r.prog] = v
	}
	ty := runTap(t, "testdata/pgbenchtap/with_server.txt", runners, vars)
	t.Logf("with_server.txt: %s", ty)
}

// tapTablespace creates a tablespace for the initialization case that
// uses one (a partitioned table cannot be put in pg_default explicitly) in
// a directory owned by the server's user, and drops it when the test ends.
// It needs the server on this machine and the right to give the directory
// to its user; without them it returns "" and the case is skipped.
func tapTablespace(t *testing.T, cfg *pgconn.Config) string {
	t.Helper()
	uid, gid := -1, -1
	if u, err := user.Lookup("postgres"); err == nil {
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
	}
	top, err := os.MkdirTemp("", "gbench-tap-ts-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(top, "ts")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Logf("no tablespace: the directory cannot be given to the server's user: %v", err)
			return ""
		}
	}
	name := fmt.Sprintf("gbench_tap_ts_%d", os.Getpid())
	admin(t, cfg, "drop tablespace if exists "+name)
	if _, err := query(cfg, fmt.Sprintf("create tablespace %s location '%s'", name, dir)); err != nil {
		t.Logf("no tablespace (the server must run on this machine, as user postgres): %v", err)
		return ""
	}
	// Cleanups run last-in first-out: the databases, created after this,
	// are dropped before the tablespace.
	t.Cleanup(func() { admin(t, cfg, "drop tablespace if exists "+name) })
	return name
}
