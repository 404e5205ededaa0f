package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/workloads"
	"github.com/spf13/pflag"
)

// sandboxMargin is how many PostgreSQL connections the sandbox allows
// beyond gbench's clients: gbench's setup connection, a psql session or
// two, and the superuser reserve.
const sandboxMargin = 20

// sandboxOptions are the options of gbench sandbox itself.
type sandboxOptions struct {
	data          workloads.Options
	sharedBuffers string
	baseDir       string
	durabilityOff bool
	help          bool
}

// runSandbox is "gbench sandbox [OPTION]... [-- GBENCH-ARGS]": it starts a
// throwaway PostgreSQL and Redis, loads the workloads' dataset into both
// and checks that the read paths agree, then runs gbench with GBENCH-ARGS
// against them, or, without GBENCH-ARGS, prints how to reach them and
// waits for Ctrl-C. Either way the servers stop and their files go when it
// returns. The exit status is gbench's, or 1 when the sandbox fails.
func runSandbox(env *Env, args []string) int {
	so, fs, gbArgs, err := parseSandboxArgs(args)
	if err != nil {
		return fail(env, err)
	}
	warnOldSpellings(env.Stderr, fs)
	if so.help {
		sandboxUsage(env.Stdout, fs)
		return exitOK
	}
	runEnv := *env
	plan, ok := probeArgs(&runEnv, gbArgs)
	if !ok {
		// --help, -V, --show-script or a bad command line: gbench answers
		// that without servers.
		return runPgbench(&runEnv, gbArgs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var running atomic.Bool
	stopWatch := watchInterrupts(env, cancel, &running)
	defer stopWatch()

	sb, err := sandbox.Start(ctx, sandbox.Options{
		Postgres: true, Redis: true, MaxConnections: plan.maxConnections(),
		SharedBuffers: so.sharedBuffers, BaseDir: so.baseDir, DurabilityOff: so.durabilityOff, Log: env.Stderr, Getenv: env.Getenv,
	})
	if err != nil {
		return fail(env, interrupted(err))
	}
	code := useSandbox(ctx, env, &runEnv, sb, so, plan, &running)
	if err := sb.Close(); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		code = max(code, exitUsage)
	}
	return code
}

// useSandbox loads the data, then runs gbench or waits for Ctrl-C.
func useSandbox(ctx context.Context, env, runEnv *Env, sb *sandbox.Sandbox, so *sandboxOptions, plan *sandboxPlan, running *atomic.Bool) int {
	start := time.Now()
	if err := loadSandbox(ctx, sb, so.data); err != nil {
		return fail(env, interrupted(err))
	}
	describeSandbox(env.Stderr, sb, so.data, time.Since(start))
	if len(plan.args) == 0 {
		printConnections(env.Stdout, sb, so.data)
		<-ctx.Done()
		fmt.Fprintf(env.Stderr, "gbench sandbox: interrupted; stopping the servers\n")
		return exitOK
	}
	args := plan.complete(sb.PostgresConnString(), sb.RedisURL(), so.data)
	fmt.Fprintf(env.Stderr, "gbench sandbox: running gbench %s\n", shellJoin(args))
	running.Store(true) // from here Ctrl-C is gbench's: it stops the run and prints what completed
	defer running.Store(false)
	return runPgbench(runEnv, args)
}

// parseSandboxArgs reads the sandbox's options; what follows "--" is
// gbench's command line.
func parseSandboxArgs(args []string) (*sandboxOptions, *pflag.FlagSet, []string, error) {
	so := &sandboxOptions{sharedBuffers: sandbox.DefaultSharedBuffers}
	so.data = workloads.Options{Items: workloads.DefaultItems, ValueSize: workloads.DefaultValueSize, Keys: workloads.DefaultKeys,
		Sessions: workloads.DefaultSessions, YCSBRecords: workloads.DefaultYCSBRecords, YCSBFieldLength: workloads.DefaultYCSBFieldLength}
	fs := pflag.NewFlagSet("gbench sandbox", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	var setErr error // a value's own message, which pflag would wrap
	intFlag := func(p *int, name string, min, max int, usage string) {
		fs.Var(&recordErr{&intValue{p: p, name: "--" + name, min: min, max: max}, &setErr}, name, usage)
	}
	intFlag(&so.data.Items, "items", workloads.MinItems, maxInt, "rows of gbench.items and Redis keys gbench:item:1..N")
	intFlag(&so.data.ValueSize, "value-size", 1, workloads.MaxValueSize, "bytes per value")
	intFlag(&so.data.Keys, "keyspace", 1, maxInt, "keys of the kv get/set workloads: rows of gbench.kv and gbench.kv_logged, Redis keys gbench:kv:1..N")
	intFlag(&so.data.Sessions, "sessions", 1, maxInt, "the article's UUID keyspace: rows of gbench.sessions and gbench.sessions_logged, Redis keys gbench:session:<uuid(1..S)>")
	addOldSpellings(fs)
	intFlag(&so.data.YCSBRecords, "ycsb-records", 1, maxInt/10, "YCSB records: rows of gbench.usertable, Redis hashes gbench:ycsb:user1..R")
	intFlag(&so.data.Warehouses, "tpcc-warehouses", 0, workloads.MaxWarehouses, "also load the TPC-C-like data, N warehouses, about 100 MB each (default 0: none)")
	intFlag(&so.data.YCSBFieldLength, "ycsb-field-length", 1, workloads.MaxValueSize, "bytes per field of a YCSB record")
	fs.StringVar(&so.sharedBuffers, "shared-buffers", so.sharedBuffers, "PostgreSQL's shared_buffers")
	fs.Var(&recordErr{durabilityValue{off: &so.durabilityOff}, &setErr}, "durability", durabilityUsage)
	fs.StringVar(&so.baseDir, "base-dir", "", "put the servers' files in a new directory under DIR (default /dev/shm when it has 1GB free, else the temporary directory)")
	fs.BoolVar(&so.help, "help", false, "show this help, then exit")
	if err := fs.Parse(args); err != nil {
		if setErr != nil {
			return nil, nil, nil, translateFlagError(setErr)
		}
		return nil, nil, nil, &usageError{msg: err.Error() + "; gbench's own options go after \"--\", as in: gbench sandbox -- -c 4 -f script.sql", hint: true}
	}
	if dash := fs.ArgsLenAtDash(); dash > 0 || (dash < 0 && fs.NArg() > 0) {
		return nil, nil, nil, &usageError{msg: fmt.Sprintf("unexpected argument \"%s\"; gbench's own options go after \"--\", as in: gbench sandbox -- -c 4 -f script.sql", fs.Arg(0)), hint: true}
	}
	return so, fs, fs.Args(), nil
}

// recordErr is a flag value that keeps its last Set error.
type recordErr struct {
	pflag.Value
	err *error
}

func (r *recordErr) Set(s string) error {
	err := r.Value.Set(s)
	if err != nil {
		*r.err = err
	}
	return err
}

func sandboxUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprintf(w, `gbench sandbox starts a throwaway PostgreSQL and Redis, loads the dataset of the
bundled workloads (workloads/*.sql) into both, checks that the read paths agree,
then runs gbench with GBENCH-ARGS against them. It appends the sandbox's
connection string as DBNAME, --resp and -D items=/keys= unless GBENCH-ARGS give
them. Without GBENCH-ARGS it prints how to reach the servers and waits for Ctrl-C.
The servers stop and their files are removed when it ends, also on Ctrl-C.

Usage:
  gbench sandbox [OPTION]... [-- GBENCH-ARGS]

Options:
%s
Example:
  gbench sandbox -- -n -M prepared -f workloads/mget64.sql -c 64 -T 10
`, fs.FlagUsages())
}

// sandboxPlan is what the probe of gbench's command line found.
type sandboxPlan struct {
	args    []string // gbench's command line as given
	clients int
	init    bool            // -i: benchmark-only options must not be added
	hasDB   bool            // a DBNAME or -d was given
	hasRESP bool            // --resp was given
	defined map[string]bool // -D names given
	groups  bool            // the command line has client groups (--group)
}

// probeArgs parses gbench's command line the way gbench will, to size the
// server and to see what the sandbox must add. ok is false when gbench
// would not run a benchmark (help, version, an error). Standard input read
// by the probe (-f -) is replayed to the run through runEnv.
func probeArgs(runEnv *Env, args []string) (plan *sandboxPlan, ok bool) {
	plan = &sandboxPlan{args: args, clients: 1, defined: map[string]bool{}}
	if len(args) == 0 {
		return plan, true
	}
	rec := &recordingReader{r: runEnv.Stdin}
	if rec.r == nil {
		rec.r = strings.NewReader("")
	}
	probe := &Env{Stdin: rec, Stdout: io.Discard, Stderr: io.Discard, Getenv: runEnv.Getenv, Now: runEnv.Now}
	if groups, err := splitGroups(args); err == nil && groups != nil {
		runEnv.Stdin = io.MultiReader(bytes.NewReader(rec.seen.Bytes()), rec.r)
		return probeGroups(probe, plan, groups), true
	}
	o, _, rest, err := parseArgs(probe, args)
	runEnv.Stdin = io.MultiReader(bytes.NewReader(rec.seen.Bytes()), rec.r)
	if err != nil || o.help || o.version {
		return plan, false
	}
	plan.clients, plan.init = o.clients, o.initialize
	plan.hasDB, plan.hasRESP = o.dbname != "" || len(rest) > 0, o.resp != ""
	for _, d := range o.defines {
		plan.defined[d.name] = true
	}
	return plan, true
}

// maxConnections sizes PostgreSQL for the run.
func (p *sandboxPlan) maxConnections() int {
	if len(p.args) == 0 {
		return sandbox.DefaultMaxConnections // room for the reference's 256 clients
	}
	return p.clients + sandboxMargin
}

// complete returns gbench's command line with what the sandbox adds:
// --resp and the -D variables the workloads read in front (benchmark mode
// only), the connection string as DBNAME at the end.
func (p *sandboxPlan) complete(conninfo, redisURL string, data workloads.Options) []string {
	var front []string
	if !p.init {
		if !p.hasRESP {
			front = append(front, "--resp", redisURL)
		}
		for _, d := range data.Defines() {
			if name, _, _ := strings.Cut(d, "="); !p.defined[name] {
				front = append(front, "-D", d)
			}
		}
	}
	if !p.hasDB && p.groups {
		// Options after the last --group are that group's: the server is
		// everyone's, so it goes in front.
		return append(append(front, conninfo), p.args...)
	}
	args := append(front, p.args...)
	if !p.hasDB {
		args = append(args, conninfo)
	}
	return args
}

// recordingReader passes reads through and keeps what it read.
type recordingReader struct {
	r    io.Reader
	seen bytes.Buffer
}

func (rr *recordingReader) Read(b []byte) (int, error) {
	n, err := rr.r.Read(b)
	rr.seen.Write(b[:n])
	return n, err
}

// watchInterrupts calls cancel on an interrupt that arrives while gbench is
// not running; during the run gbench handles interrupts itself. The
// returned function stops watching.
func watchInterrupts(env *Env, cancel func(), running *atomic.Bool) func() {
	if env.Signals == nil {
		return func() {}
	}
	ch := make(chan os.Signal, 4)
	env.Signals(ch)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				if !running.Load() {
					cancel()
				}
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// interrupted rewords an error caused by Ctrl-C.
func interrupted(err error) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted; removing the sandbox")
	}
	return err
}

// loadSandbox loads the dataset into both servers and checks the contract.
func loadSandbox(ctx context.Context, sb *sandbox.Sandbox, data workloads.Options) error {
	pg, err := pgsql.Open(ctx, sb.PostgresConnString())
	if err != nil {
		return err
	}
	defer pg.Close()
	ro, err := resp.ParseURL(sb.RedisURL())
	if err != nil {
		return err
	}
	redis, err := resp.Dial(ctx, ro)
	if err != nil {
		return err
	}
	defer redis.Close()
	if err := workloads.Load(ctx, pg, redis, data); err != nil {
		return err
	}
	return workloads.Contract(ctx, pg, redis)
}

// describeSandbox tells on stderr where the servers are and how they run.
func describeSandbox(w io.Writer, sb *sandbox.Sandbox, data workloads.Options, took time.Duration) {
	var settings []string
	for _, s := range sb.PostgresSettings() {
		settings = append(settings, s.Name+"="+s.Value)
	}
	fmt.Fprintf(w, "gbench sandbox: PostgreSQL %s at %q (%s)\n", sb.PostgresVersion(), sb.PostgresConnString(), strings.Join(settings, ", "))
	fmt.Fprintf(w, "gbench sandbox: Redis %s at %s\n", sb.RedisVersion(), sb.RedisURL())
	fmt.Fprintf(w, "gbench sandbox: files in %s, removed on exit\n", sb.Dir())
	tpcc := ""
	if data.Warehouses > 0 {
		tpcc = fmt.Sprintf(", TPC-C-like data for %d %s", data.Warehouses, plural(data.Warehouses, "warehouse", "warehouses"))
	}
	fmt.Fprintf(w, "gbench sandbox: loaded %d items of %d bytes, %d kv keys, %d sessions, %d YCSB records%s in %.1fs; the read paths agree\n",
		data.Items, data.ValueSize, data.Keys, data.Sessions, data.YCSBRecords, tpcc, took.Seconds())
}

// printConnections prints, on stdout, how to reach the servers and run
// the workloads against them.
func printConnections(w io.Writer, sb *sandbox.Sandbox, data workloads.Options) {
	conninfo, url := sb.PostgresConnString(), sb.RedisURL()
	defines := ""
	for _, d := range data.Defines() {
		defines += " -D " + d
	}
	fmt.Fprintf(w, "PostgreSQL: %s\n", conninfo)
	fmt.Fprintf(w, "Redis:      %s\n", url)
	fmt.Fprintf(w, "Try:        gbench -n -M prepared -f workloads/mget64.sql -c 64 -T 10%s --resp %s %s\n", defines, url, shellQuote(conninfo))
	fmt.Fprintf(w, "            psql %s\n", shellQuote(conninfo))
	fmt.Fprintf(w, "Press Ctrl-C to stop the servers and remove their files.\n")
}

// shellJoin quotes args for a shell where needed.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote single-quotes s when a POSIX shell would split or expand it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || slices.Contains([]rune("-_./:=@,+%"), r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// probeGroups fills a plan for a command line of client groups: their
// clients add up; the server and the variables are the groups' if every
// group gives them.
func probeGroups(probe *Env, plan *sandboxPlan, groups []*clientGroup) *sandboxPlan {
	plan.groups, plan.clients, plan.hasDB, plan.hasRESP = true, 0, true, true
	count := map[string]int{} // groups defining each -D name
	for _, g := range groups {
		o, _, rest, err := parseArgs(probe, g.args)
		if err != nil {
			plan.clients++
			plan.hasDB, plan.hasRESP = false, false
			continue
		}
		plan.clients += o.clients
		plan.hasDB = plan.hasDB && (o.dbname != "" || len(rest) > 0)
		plan.hasRESP = plan.hasRESP && o.resp != ""
		seen := map[string]bool{}
		for _, d := range o.defines {
			if !seen[d.name] {
				seen[d.name] = true
				count[d.name]++
			}
		}
	}
	for name, n := range count {
		plan.defined[name] = n == len(groups)
	}
	return plan
}
