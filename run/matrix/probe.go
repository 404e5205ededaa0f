package matrix

import (
	"context"
	"errors"
	"fmt"
	"github.com/gbench/gbench/result/schema"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// cpuTime is a server's cumulative CPU time, in seconds, as read from
// source; sigma is the standard deviation of the read's rounding error.
// When exact is set, total is the CPU time and user and sys, coarser
// (clock ticks), only split it between user and system.
type cpuTime struct {
	user, sys float64
	total     float64
	exact     bool
	source    string
	sigma     float64
}

// used is the CPU time, user and system together.
func (c cpuTime) used() float64 {
	if c.exact {
		return c.total
	}
	return c.user + c.sys
}

// probe measures what samples cost one server. cpu and memory may run on
// the prober thread during a sample; the other methods run between
// samples. A probe is used by one goroutine at a time.
type probe interface {
	name() string
	// costNote says why cpu and memory cannot be measured; "" when they can.
	costNote() string
	cpu() (cpuTime, error)
	memory() (*schema.Memory, error)
	// counters returns the server's cumulative request counters.
	counters(ctx context.Context) (map[string]int64, error)
	// mark notes the server's state before a sample; settle waits, after
	// the sample, until the sample's connections are gone from the server,
	// and reports whether they went before settleTimeout.
	mark()
	settle(ctx context.Context) bool
	// cgroups are the server's cgroup directories (a sandbox's), whose
	// resource record a sample keeps; zero when it has none.
	cgroups() Cgroups
	// waitConn is a connection of its own to a PostgreSQL server, on which
	// a sample reads the wait states; nil for another server, or when it
	// could not be opened (waitNote says why).
	waitConn() (*pgsql.Client, string)
}

// settleTimeout bounds the wait for a sample's backends to exit.
const settleTimeout = 10 * time.Second

// pgProbe measures PostgreSQL: the CPU time and memory of the postmaster
// and all its children from /proc, and pg_stat_database.
type pgProbe struct {
	label string // the server's name in samples
	conn  *pgsql.Client
	// cgroup, when set, is a cgroup v2 directory holding every process of
	// the server; its cpu.stat is read instead of /proc.
	cgroup  string
	pm      int    // the postmaster's pid; 0 when its processes are not visible
	note    string // why pm is 0
	appName string // the application_name of gbench's connections
	// own is set when the server is gbench's alone (a sandbox): settle then
	// waits for every new child to be reaped.
	own    bool
	before []int // the children before the sample
	cgs    Cgroups
	// waits is the wait-state sampler's connection; waitsNote why it is nil.
	waits     *pgsql.Client
	waitsNote string
}

func (p *pgProbe) cgroups() Cgroups                  { return p.cgs }
func (p *pgProbe) waitConn() (*pgsql.Client, string) { return p.waits, p.waitsNote }

func (p *pgProbe) name() string     { return or(p.label, "postgres") }
func (p *pgProbe) costNote() string { return p.note }

func (p *pgProbe) cpu() (cpuTime, error) {
	if p.cgroup != "" {
		return readCgroupCPU(p.cgroup)
	}
	if p.pm == 0 {
		return cpuTime{}, errors.New(p.note)
	}
	t, _, err := readTreeCPU(p.pm)
	// The live processes' run time is in nanoseconds; only the times of
	// children reaped inside the window are whole clock ticks, cut down:
	// an error uniform over one tick for each such value, whose variance
	// is a tick squared over 12.
	sigma := math.Sqrt(float64(t.fuzzy)/12) / clockTicks
	return cpuTime{user: seconds(t.user), sys: seconds(t.sys), total: t.total(), exact: true, source: "schedstat", sigma: sigma}, err
}

func (p *pgProbe) memory() (*schema.Memory, error) {
	if p.pm == 0 {
		return nil, errors.New(p.note)
	}
	m, err := readTreeMemory(p.pm)
	if err != nil {
		return nil, err
	}
	out := &schema.Memory{Bytes: m.pss, Kind: "pss", RSSBytes: m.rss, AnonBytes: m.anon, Processes: m.processes}
	if !m.pssOK {
		out.Bytes, out.Kind = m.rss, "rss"
	}
	return out, nil
}

// pgCounters are the pg_stat_database columns a sample records.
var pgCounters = []string{"xact_commit", "xact_rollback", "blks_hit", "blks_read", "tup_returned", "tup_fetched"}

// counters reads pg_stat_database. Its own connection's statistics are
// flushed first (PostgreSQL 15 and later): a backend flushes them a second
// or more after its transactions, at the end of a later one, so that the
// set-up work of this connection (the load, the description) would
// otherwise land in the first sample's counters (anyone may call it).
func (p *pgProbe) counters(ctx context.Context) (map[string]int64, error) {
	if major, _ := strconv.Atoi(strings.SplitN(p.conn.Parameter("server_version"), ".", 2)[0]); major >= 15 {
		_, _ = p.conn.QueryText(ctx, "SELECT pg_stat_force_next_flush()") // a failure shows in the next query

	}
	sql := "SELECT " + strings.Join(pgCounters, ", ") + " FROM pg_stat_database WHERE datname = current_database()"
	rows, err := p.conn.QueryText(ctx, sql)
	if err != nil {
		return nil, err
	}
	if len(rows) != 1 {
		return nil, errors.New("pg_stat_database has no row for the database")
	}
	m := map[string]int64{}
	for i, name := range pgCounters {
		m[name], _ = strconv.ParseInt(rows[0][i], 10, 64)
	}
	return m, nil
}

func (p *pgProbe) mark() {
	p.before = nil
	if p.own && p.pm != 0 {
		p.before, _ = children(p.pm)
	}
}

// settle waits until the sample's backends are gone, so that their
// statistics are flushed (a backend flushes them before it leaves
// pg_stat_activity) and their exit does not land in the next sample. On
// a server of its own (a sandbox) it waits until every child the
// postmaster started during the sample has been reaped, its CPU time
// added to the postmaster's; on a shared server, whose other clients come
// and go, until gbench's connections have left pg_stat_activity.
//
// The timeout bounds the waiting between checks, never a check itself: a
// query cancelled by its context closes the connection (pgconn), and this
// one is the probe's, which the run goes on using.
func (p *pgProbe) settle(ctx context.Context) bool {
	deadline := time.Now().Add(settleTimeout)
	for !p.settled(ctx) {
		if !time.Now().Before(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

func (p *pgProbe) settled(ctx context.Context) bool {
	if p.own && p.pm != 0 {
		kids, err := children(p.pm)
		return err != nil || !slices.ContainsFunc(kids, func(k int) bool { return !slices.Contains(p.before, k) })
	}
	rows, err := p.conn.QueryText(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()", p.appName)
	return err != nil || rows[0][0] == "0"
}

// findPostmaster returns the postmaster of conn's server when its
// processes are visible in this machine's /proc: the server is reached
// over a local address or socket, and conn's backend is a postgres
// process whose parent is one too. Otherwise it says why not.
func findPostmaster(ctx context.Context, conn *pgsql.Client, host string) (int, string) {
	if !isLocal(host) {
		return 0, fmt.Sprintf("the server at %s is not on this machine", host)
	}
	rows, err := conn.QueryText(ctx, "SELECT pg_backend_pid()")
	if err != nil {
		return 0, fmt.Sprintf("cannot read the backend's pid: %v", err)
	}
	pid, _ := strconv.Atoi(rows[0][0])
	st, err := readStat(pid)
	if err != nil || st.comm != "postgres" {
		return 0, "the server's processes are not visible here (another container or PID namespace?)"
	}
	pm, err := readStat(st.ppid)
	if err != nil || pm.comm != "postgres" {
		return 0, "the server's postmaster is not visible here"
	}
	return st.ppid, ""
}

// isLocal reports whether host is a unix socket directory or a loopback
// address.
func isLocal(host string) bool {
	if strings.HasPrefix(host, "/") || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// redisProbe measures Redis through INFO: CPU (the whole process), memory
// and keyspace counters.
type redisProbe struct {
	label  string // the server's name in samples
	rc     *resp.Client
	cgroup string // as pgProbe's
	cgs    Cgroups
}

func (p *redisProbe) cgroups() Cgroups                  { return p.cgs }
func (p *redisProbe) waitConn() (*pgsql.Client, string) { return nil, "" }

func (p *redisProbe) name() string     { return or(p.label, "redis") }
func (p *redisProbe) costNote() string { return "" }

func (p *redisProbe) cpu() (cpuTime, error) {
	if p.cgroup != "" {
		return readCgroupCPU(p.cgroup)
	}
	m, err := p.rc.Info("cpu")
	if err != nil {
		return cpuTime{}, err
	}
	user, ok1 := infoFloat(m, "used_cpu_user")
	sys, ok2 := infoFloat(m, "used_cpu_sys")
	if !ok1 || !ok2 {
		return cpuTime{}, errors.New("INFO cpu has no used_cpu_user and used_cpu_sys")
	}
	// INFO prints its getrusage times with six decimals.
	return cpuTime{user: user, sys: sys, source: "INFO cpu", sigma: 2 * math.Sqrt(1.0/12) * 1e-6}, nil
}

func (p *redisProbe) memory() (*schema.Memory, error) {
	m, err := p.rc.Info("memory")
	if err != nil {
		return nil, err
	}
	used, ok := infoInt(m, "used_memory")
	if !ok {
		return nil, errors.New("INFO memory has no used_memory")
	}
	rss, _ := infoInt(m, "used_memory_rss")
	return &schema.Memory{Bytes: used, Kind: "used_memory", RSSBytes: rss}, nil
}

// redisCounters are the INFO stats fields a sample records.
var redisCounters = []string{"keyspace_hits", "keyspace_misses", "total_commands_processed", "total_net_input_bytes", "total_net_output_bytes"}

func (p *redisProbe) counters(context.Context) (map[string]int64, error) {
	m, err := p.rc.Info("stats")
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, name := range redisCounters {
		out[name], _ = infoInt(m, name)
	}
	return out, nil
}

// Redis counts a request when it serves it; a closed connection leaves
// nothing behind to wait for.
func (p *redisProbe) mark()                       {}
func (p *redisProbe) settle(context.Context) bool { return true }
