package main

import (
	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
	"time"
)

// options are pgbench's command-line options plus gbench's, as parsed.
type options struct {
	// initialization
	initialize      bool
	initSteps       string
	fillFactor      int
	quiet           bool
	foreignKeys     bool
	indexTablespace string
	partitionMethod string
	partitions      int
	tablespace      string
	unlogged        bool

	// what to run
	scripts []scriptSpec // -f, -b, -N, -S in order

	// benchmarking
	clients           int
	connect           bool
	defines           []define
	jobs              int
	log               bool
	latencyLimit      float64 // ms
	mode              string
	noVacuum          bool
	progress          int
	perCommand        bool
	rate              float64
	scale             int
	transactions      int
	duration          int
	vacuumAll         bool
	aggInterval       int
	failuresDetailed  bool
	logPrefix         string
	maxTries          int
	progressTimestamp bool
	seed              uint64 // --random-seed or PGBENCH_RANDOM_SEED
	seedSet           bool
	samplingRate      float64
	verboseErrors     bool
	exitOnAbort       bool
	continueOnError   bool
	// faults (docs/faults.md)
	reconnect      bool
	reconnectDelay [2]time.Duration // first wait, cap
	maxReconnects  int
	ioTimeout      time.Duration

	// connection and common
	debug    bool
	dbname   string
	host     string
	port     string
	username string
	version  bool
	help     bool

	// gbench
	resp        string
	respStats   bool // --resp-stats
	percentiles string
	jsonOut     string
	hdrLog      string
	metricsAddr string
	// gates and warm-up (thresholds.go)
	thresholds     []string
	thresholdAbort float64       // grace in seconds; -1 without --threshold-abort
	warmup         float64       // seconds (warmup.go)
	waitEvents     time.Duration // --wait-events' interval; 0 without (waits.go)
	// pgbenchOutput is --pgbench-output's summary layout: 15 or 18;
	// latencyPercentiles is --latency-percentiles's list ("" without).
	pgbenchOutput      int
	latencyPercentiles string

	// gbench: a worker of a run over several machines
	workerIndex  int
	workerCount  int // 0 when not a worker
	runID        string
	startAt      int64 // Unix nanoseconds, when startAtSet
	startAtSet   bool
	startTimeout int // seconds

	// args is the command line after the program name, for the result's
	// context.
	args []string

	// group is the client group this command line is, under --group
	// (groups.go): its -P lines carry its name and feed the totals line,
	// its --json result is kept for the one result of the groups. Nil for
	// a run of its own and for stages.
	group *groupRun

	// env is where options that act while parsing read scripts from (-f -)
	// and print to (--random-seed, like pgbench).
	env *Env
}

// scriptSpec is one -f, -b, -N or -S option, with its script read and
// parsed when the option was met.
type scriptSpec struct {
	builtin bool
	name    string
	weight  int
	script  *script.Script
}

// define is one -D name=value.
type define struct{ name, value string }

// initOnly, benchOnly: pgbench rejects these options in the other mode.
var initOnly = map[string]bool{
	"init-steps": true, "fillfactor": true, "quiet": true, "foreign-keys": true,
	"index-tablespace": true, "partition-method": true, "partitions": true,
	"tablespace": true, "unlogged-tables": true,
}

var benchOnly = map[string]bool{
	"builtin": true, "client": true, "connect": true, "define": true, "file": true,
	"jobs": true, "log": true, "latency-limit": true, "protocol": true,
	"skip-some-updates": true, "progress": true, "report-per-command": true,
	"rate": true, "select-only": true, "transactions": true, "time": true,
	"vacuum-all": true, "aggregate-interval": true, "failures-detailed": true,
	"log-prefix": true, "max-tries": true, "progress-timestamp": true,
	"random-seed": true, "sampling-rate": true, "verbose-errors": true,
	"exit-on-abort": true, "resp": true, "resp-stats": true, "percentiles": true, "json": true, "hdr-log": true,
	"metrics-addr": true, "worker": true, "run-id": true, "start-at": true, "start-timeout": true,
	"continue-on-error": true, "reconnect": true, "reconnect-delay": true, "max-reconnects": true,
	"io-timeout": true, "threshold": true, "threshold-abort": true, "warmup": true,
	"wait-events": true, "pgbench-output": true, "latency-percentiles": true, "group": true, "stage": true,
}

// defineFlags declares every option next to its help text.
func defineFlags(fs *pflag.FlagSet, o *options) {
	fs.BoolVarP(&o.initialize, "initialize", "i", false, "invokes initialization mode")
	fs.VarP(&stepsValue{&o.initSteps}, "init-steps", "I", "run selected initialization steps")
	fs.VarP(&intValue{p: &o.fillFactor, name: "-F/--fillfactor", min: 10, max: 100}, "fillfactor", "F", "set fill factor")
	fs.BoolVarP(&o.noVacuum, "no-vacuum", "n", false, "do not run VACUUM (before tests, or during initialization)")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "quiet logging (one message each 5 seconds)")
	fs.VarP(&intValue{p: &o.scale, name: "-s/--scale", min: 1, max: maxInt}, "scale", "s", "scaling factor")
	fs.BoolVar(&o.foreignKeys, "foreign-keys", false, "create foreign key constraints between tables")
	fs.StringVar(&o.indexTablespace, "index-tablespace", "", "create indexes in the specified tablespace")
	fs.Var(&partMethodValue{&o.partitionMethod}, "partition-method", "partition pgbench_accounts with this method (default: range)")
	fs.Var(&intValue{p: &o.partitions, name: "--partitions", min: 0, max: maxInt}, "partitions", "partition pgbench_accounts into NUM parts (default: 0)")
	fs.StringVar(&o.tablespace, "tablespace", "", "create tables in the specified tablespace")
	fs.BoolVar(&o.unlogged, "unlogged-tables", false, "create tables as unlogged tables")

	fs.VarP(&scriptValue{o: o, builtin: true}, "builtin", "b", "add builtin script NAME weighted at W (default: 1)\n(use \"-b list\" to list available scripts)")
	fs.VarP(&scriptValue{o: o}, "file", "f", "add script FILENAME weighted at W (default: 1)")
	fs.VarP(&fixedScriptValue{o: o, name: "simple-update"}, "skip-some-updates", "N", "skip updates of pgbench_tellers and pgbench_branches\n(same as \"-b simple-update\")")
	fs.VarP(&fixedScriptValue{o: o, name: "select-only"}, "select-only", "S", "perform SELECT-only transactions\n(same as \"-b select-only\")")
	for _, n := range []string{"skip-some-updates", "select-only"} {
		fs.Lookup(n).NoOptDefVal = "true"
	}

	fs.VarP(&intValue{p: &o.clients, name: "-c/--client", min: 1, max: maxInt}, "client", "c", "number of concurrent database clients (default: 1)")
	fs.BoolVarP(&o.connect, "connect", "C", false, "establish new connection for each transaction")
	fs.VarP(&defineValue{&o.defines}, "define", "D", "define variable for use by custom script")
	fs.VarP(&intValue{p: &o.jobs, name: "-j/--jobs", min: 1, max: maxInt}, "jobs", "j", "number of threads (default: 1)")
	fs.BoolVarP(&o.log, "log", "l", false, "write transaction times to log file")
	fs.VarP(&limitValue{&o.latencyLimit}, "latency-limit", "L", "count transactions lasting more than NUM ms as late")
	fs.VarP(&modeValue{&o.mode}, "protocol", "M", "protocol for submitting queries (default: simple)")
	fs.VarP(&intValue{p: &o.progress, name: "-P/--progress", min: 1, max: maxInt}, "progress", "P", "show thread progress report every NUM seconds")
	fs.BoolVarP(&o.perCommand, "report-per-command", "r", false, "report latencies, failures, and retries per command")
	fs.VarP(&rateValue{&o.rate}, "rate", "R", "target rate in transactions per second")
	fs.VarP(&intValue{p: &o.transactions, name: "-t/--transactions", min: 1, max: maxInt}, "transactions", "t", "number of transactions each client runs (default: 10)")
	fs.VarP(&intValue{p: &o.duration, name: "-T/--time", min: 1, max: maxInt}, "time", "T", "duration of benchmark test in seconds")
	fs.BoolVarP(&o.vacuumAll, "vacuum-all", "v", false, "vacuum all four standard tables before tests")
	fs.Var(&intValue{p: &o.aggInterval, name: "--aggregate-interval", min: 1, max: maxInt}, "aggregate-interval", "aggregate data over NUM seconds")
	fs.BoolVar(&o.failuresDetailed, "failures-detailed", false, "report the failures grouped by basic types")
	fs.StringVar(&o.logPrefix, "log-prefix", "", "prefix for transaction time log file\n(default: \"pgbench_log\")")
	fs.Var(&triesValue{&o.maxTries}, "max-tries", "max number of tries to run transaction (default: 1)")
	fs.BoolVar(&o.progressTimestamp, "progress-timestamp", false, "use Unix epoch timestamps for progress")
	fs.Var(&seedValue{o}, "random-seed", "set random seed (\"time\", \"rand\", integer)")
	fs.Var(&samplingValue{&o.samplingRate}, "sampling-rate", "fraction of transactions to log (e.g., 0.01 for 1%)")
	fs.Var(showScriptValue{}, "show-script", "show builtin script code, then exit")
	fs.BoolVar(&o.verboseErrors, "verbose-errors", false, "print messages of all errors")
	fs.BoolVar(&o.exitOnAbort, "exit-on-abort", false, "exit when any client is aborted")
	fs.BoolVar(&o.continueOnError, "continue-on-error", false, "continue running after an SQL error")

	fs.BoolVar(&o.debug, "debug", false, "print debugging output")
	fs.StringVarP(&o.dbname, "dbname", "d", "", "database name to connect to\n(a conninfo string or URI also works)")
	fs.StringVarP(&o.host, "host", "h", "", "database server host or socket directory")
	fs.StringVarP(&o.port, "port", "p", "", "database server port number")
	fs.StringVarP(&o.username, "username", "U", "", "connect as specified database user")
	fs.BoolVarP(&o.version, "version", "V", false, "output version information, then exit")
	fs.BoolVar(&o.help, "help", false, "show this help, then exit")

	fs.StringVar(&o.resp, "resp", "", "Redis-protocol server for \\resp commands:\nredis://[user:password@]host:port[/db], rediss://...,\nredis-sentinel://host:port,.../MASTER,\nredis+cluster://host:port,... (a Redis Cluster), or a socket path")
	fs.BoolVar(&o.respStats, "resp-stats", false, "print \\resp keyspace hits and misses, hash fields\nfound and missing, bytes sent and received\n(per command with -r)")
	fs.StringVar(&o.percentiles, "percentiles", "50,90,99,99.9,100", "latency percentiles to report (100 is the maximum;\ndefault: 50,90,99,99.9,100; empty for none)")
	fs.StringVar(&o.jsonOut, "json", "", "write the whole result as JSON to FILE\n(\"-\" for standard output)")
	fs.StringVar(&o.hdrLog, "hdr-log", "", "write an HdrHistogram interval log of latencies to FILE")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics of the run at http://HOST:PORT/metrics")
	fs.Var(&workerValue{o}, "worker", "run as worker I (from 0) of N of one run over several\nmachines: this process runs its share of the threads\n(-j) and their clients (docs/distributed.md)")
	fs.StringVar(&o.runID, "run-id", "", "the run's name, the same for all its workers: they meet\nthrough the server under it before they start")
	fs.Var(&startAtValue{o}, "start-at", "start at this wall-clock time instead of meeting\n(RFC 3339, or Unix seconds)")
	fs.Var(&intValue{p: &o.startTimeout, name: "--start-timeout", min: 1, max: maxInt}, "start-timeout", "wait at most NUM seconds for the other workers (default: 300)")
	fs.BoolVar(&o.reconnect, "reconnect", false, "a lost, refused or timed-out connection fails the\ntransaction; the client reconnects and goes on")
	o.reconnectDelay = [2]time.Duration{defaultReconnectDelay, defaultReconnectCap}
	fs.Var(&backoffValue{&o.reconnectDelay}, "reconnect-delay", "wait before reconnecting, doubled up to MAX\n(default: 50ms,1s; jittered)")
	fs.Var(&intValue{p: &o.maxReconnects, name: "--max-reconnects", min: 0, max: maxInt}, "max-reconnects", "abort a client after NUM failed reconnections in a row\n(default: 0, no limit)")
	defineGateFlags(fs, o)
	defineOutputFlags(fs, o)
	defineWaitFlag(fs, o)
	// --group and --stage split the command line before it is parsed
	// (groups.go); they are flags only for --help, and reach the parser
	// only in a series' command line, which refuses them.
	fs.StringArray("group", nil, "run the options after it as a client group of its own,\ntogether with the other groups (repeatable)")
	fs.StringArray("stage", nil, "run the command line once per stage, one after the other,\nwith its rate=N (or rate=FROM..TO, a linear ramp), clients=N\nand time=SECONDS (repeatable)")
	fs.Var(&matrixSeconds{p: &o.warmup, name: "--warmup", min: 0}, "warmup", "run the workload for NUM seconds first and discard its\nfigures; -T counts after it")
	fs.Var(&timeoutValue{p: &o.ioTimeout, name: "--io-timeout"}, "io-timeout", "fail a request whose reply takes longer than DURATION\n(\"5s\", \"250ms\"; a plain number is seconds)")
}

// The defaults of --reconnect-delay: the first wait, and its cap.
const (
	defaultReconnectDelay = 50 * time.Millisecond
	defaultReconnectCap   = time.Second
)

const maxInt = 1<<31 - 1
