package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/workloads"
	"github.com/spf13/pflag"
)

// loadOptions are the options of gbench workloads load and drop.
type loadOptions struct {
	conn   options // host, port, username, dbname as gbench takes them
	resp   string
	data   workloads.Options
	dryRun bool
	help   bool
}

// parseLoadArgs reads the options of load (sizes: true) or drop.
func parseLoadArgs(args []string, sizes bool) (*loadOptions, *pflag.FlagSet, error) {
	lo := &loadOptions{}
	name := "gbench workloads drop"
	if sizes {
		name = "gbench workloads load"
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	if sizes {
		fs.Var(&intValue{p: &lo.data.Items, name: "--items", min: workloads.MinItems, max: maxInt}, "items", "rows of gbench.items and Redis keys gbench:item:1..N")
		fs.Var(&intValue{p: &lo.data.ValueSize, name: "--value-size", min: 1, max: workloads.MaxValueSize}, "value-size", "bytes per value")
		fs.Var(&intValue{p: &lo.data.Keys, name: "--keyspace", min: 1, max: maxInt}, "keyspace", "keys of the kv workloads: rows of gbench.kv and gbench.kv_logged, Redis keys gbench:kv:1..K")
		fs.Var(&intValue{p: &lo.data.Sessions, name: "--sessions", min: 1, max: maxInt}, "sessions", "the article's UUID keyspace: rows of gbench.sessions and gbench.sessions_logged, Redis keys gbench:session:<uuid(1..S)>")
		addOldSpellings(fs)
		fs.Var(&intValue{p: &lo.data.YCSBRecords, name: "--ycsb-records", min: 1, max: maxInt / 10}, "ycsb-records", "YCSB records: rows of gbench.usertable and Redis hashes gbench:ycsb:user1..R")
		fs.Var(&intValue{p: &lo.data.Warehouses, name: "--tpcc-warehouses", min: 0, max: workloads.MaxWarehouses}, "tpcc-warehouses", "also the TPC-C-like data (PostgreSQL only), N warehouses, about 100 MB each (default 0: none)")
		fs.Var(&intValue{p: &lo.data.YCSBFieldLength, name: "--ycsb-field-length", min: 1, max: workloads.MaxValueSize}, "ycsb-field-length", "bytes per field of a YCSB record, 10 fields a record")
		fs.BoolVar(&lo.data.Tagged, "tagged", false, "also the hash-tagged copies gbench:{item:G}:N of the items (G = (N-1)/64: 64 ids share a slot), for resp-mget*-tagged.sql on a Redis Cluster")
	}
	fs.StringVar(&lo.resp, "resp", "", "also the Redis at `URL` (redis://[user:password@]host:port[/db], rediss://..., a socket path; redis+cluster://host:port,... or ?cluster=yes: each key on its cluster master); alone, without DBNAME, -d, -h, -p or -U: Redis only")
	fs.BoolVar(&lo.dryRun, "dry-run", false, "say what would be "+map[bool]string{true: "replaced", false: "removed"}[sizes]+", change nothing")
	fs.StringVarP(&lo.conn.dbname, "dbname", "d", "", "database name to connect to (a conninfo string or URI also works)")
	fs.StringVarP(&lo.conn.host, "host", "h", "", "database server host or socket directory")
	fs.StringVarP(&lo.conn.port, "port", "p", "", "database server port number")
	fs.StringVarP(&lo.conn.username, "username", "U", "", "connect as specified database user")
	fs.BoolVar(&lo.help, "help", false, "show this help, then exit")
	if err := fs.Parse(args); err != nil {
		return nil, nil, workloadsFlagError(err)
	}
	rest := fs.Args()
	if len(rest) > 0 && lo.conn.dbname == "" {
		lo.conn.dbname, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return nil, nil, usagef("too many command-line arguments (first is \"%s\")"+workloadsHint, rest[0])
	}
	return lo, fs, nil
}

// wantsPostgres reports whether PostgreSQL is a target: always, unless
// --resp names Redis and nothing names a database, as a script of \resp
// commands alone opens no PostgreSQL connection.
func (lo *loadOptions) wantsPostgres() bool {
	c := lo.conn
	return lo.resp == "" || c.dbname != "" || c.host != "" || c.port != "" || c.username != ""
}

// loadUsage prints the help of load (sizes: true) or drop.
func loadUsage(w io.Writer, fs *pflag.FlagSet, sizes bool) {
	if sizes {
		fmt.Fprintf(w, `gbench workloads load loads the dataset of the bundled workloads, the same one
"gbench sandbox" and "gbench matrix --load" load: into PostgreSQL the schema
gbench (tables items, items_cache, kv, usertable; functions mget, item_value),
into Redis (with --resp) the keys gbench:item:N, gbench:kv:N and the YCSB hashes
gbench:ycsb:userN. Loading again replaces it.
It first says what it replaces, and refuses, changing nothing, when the schema
gbench or the keys gbench:* hold something gbench did not create.

Usage:
  gbench workloads load [OPTION]... [DBNAME]

Options:
%s
Examples:
  gbench workloads load mydb                                    # PostgreSQL
  gbench workloads load --resp redis://127.0.0.1:6379/0 mydb    # both
  gbench workloads load --resp redis://127.0.0.1:6379/0         # Redis alone
  gbench workloads load --tagged --resp redis+cluster://127.0.0.1:7000   # a Redis Cluster
`, fs.FlagUsages())
		return
	}
	fmt.Fprintf(w, `gbench workloads drop removes what "gbench workloads load" created: the schema
gbench and its objects, and (with --resp) the keys gbench:item:*, gbench:kv:*,
gbench:cache:*, gbench:ycsb:* and gbench:dataset. It refuses, changing nothing, when they hold
something gbench did not create.

Usage:
  gbench workloads drop [OPTION]... [DBNAME]

Options:
%s`, fs.FlagUsages())
}

// loadTargets are the open connections of a load or drop.
type loadTargets struct {
	pg      *pgsql.Client
	redis   net.Conn
	cluster *workloads.RedisCluster // instead of redis, for a cluster URL
	where   []string                // "PostgreSQL ..." and "Redis ...", for the first line
}

func (t *loadTargets) close() {
	if t.pg != nil {
		t.pg.Close()
	}
	if t.redis != nil {
		t.redis.Close()
	}
	if t.cluster != nil {
		t.cluster.Close()
	}
}

// inspect, load and drop go to the cluster or the one Redis.
func (t *loadTargets) inspect(ctx context.Context) ([]workloads.Existing, error) {
	if t.cluster != nil {
		return workloads.InspectCluster(ctx, t.pg, t.cluster)
	}
	return workloads.Inspect(ctx, t.pg, t.redis)
}

func (t *loadTargets) load(ctx context.Context, d workloads.Options, log io.Writer) error {
	if t.cluster != nil {
		return workloads.LoadClusterLog(ctx, t.pg, t.cluster, d, log)
	}
	return workloads.LoadLog(ctx, t.pg, t.redis, d, log)
}

func (t *loadTargets) drop(ctx context.Context) error {
	if t.cluster != nil {
		return workloads.DropCluster(ctx, t.pg, t.cluster)
	}
	return workloads.Drop(ctx, t.pg, t.redis)
}

// connect opens the connections lo names.
func (lo *loadOptions) connect(ctx context.Context) (*loadTargets, error) {
	t := &loadTargets{}
	if lo.wantsPostgres() {
		cfg, err := pgConfig(&lo.conn)
		if err != nil {
			return nil, err
		}
		if t.pg, err = cfg.Open(ctx); err != nil {
			return nil, usagef("%s", connError(cfg, err))
		}
		t.where = append(t.where, fmt.Sprintf("PostgreSQL (database \"%s\" on %s)", cfg.Database(), serverAddr(cfg.Host(), cfg.Port())))
	}
	if lo.resp != "" {
		ro, err := resp.ParseURL(lo.resp)
		if err != nil {
			t.close()
			return nil, usagef("%v", err)
		}
		if ro.Cluster {
			if t.cluster, err = workloads.DialCluster(ctx, ro); err != nil {
				t.close()
				return nil, usagef("could not connect to the Redis cluster: %v", err)
			}
			t.where = append(t.where, fmt.Sprintf("the Redis cluster (%s, %d masters)", resp.RedactURL(lo.resp), len(t.cluster.Masters())))
			return t, nil
		}
		if t.redis, err = resp.Dial(ctx, ro); err != nil {
			t.close()
			return nil, usagef("could not connect to Redis: %v", err)
		}
		t.where = append(t.where, "Redis ("+resp.RedactURL(lo.resp)+")")
	}
	return t, nil
}

// serverAddr spells a host and port, or a socket directory.
func serverAddr(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("socket %s, port %d", host, port)
	}
	return fmt.Sprintf("%s:%d", host, port)
}

// runWorkloadsLoad is "gbench workloads load".
func runWorkloadsLoad(env *Env, args []string) int {
	lo, fs, err := parseLoadArgs(args, true)
	if err != nil {
		return fail(env, err)
	}
	warnOldSpellings(env.Stderr, fs)
	if lo.help {
		loadUsage(env.Stdout, fs, true)
		return exitOK
	}
	ctx, _, stop := signalContext(env)
	defer stop()
	t, err := lo.connect(ctx)
	if err != nil {
		return fail(env, err)
	}
	defer t.close()
	if lo.dryRun {
		return dryRun(ctx, env, t, "replace")
	}
	d := lo.data
	tpcc := ""
	if d.Warehouses > 0 {
		tpcc = fmt.Sprintf(", TPC-C-like data for %d %s", d.Warehouses, plural(d.Warehouses, "warehouse", "warehouses"))
	}
	fmt.Fprintf(env.Stderr, "gbench workloads: loading %d items of %d bytes, %d kv keys, %d sessions and %d YCSB records%s into %s\n",
		or(d.Items, workloads.DefaultItems), or(d.ValueSize, workloads.DefaultValueSize), or(d.Keys, workloads.DefaultKeys), or(d.Sessions, workloads.DefaultSessions),
		or(d.YCSBRecords, workloads.DefaultYCSBRecords), tpcc, strings.Join(t.where, " and "))
	if err := t.load(ctx, d, env.Stderr); err != nil {
		return fail(env, err)
	}
	if t.pg != nil && t.redis != nil {
		if err := workloads.Contract(ctx, t.pg, t.redis); err != nil {
			return fail(env, err)
		}
		fmt.Fprintf(env.Stderr, "gbench workloads: the three read paths return the same values\n")
	}
	fmt.Fprintf(env.Stderr, "gbench workloads: run the workloads with -D %s (gbench workloads list says which need them)\n",
		strings.Join(d.Defines(), " -D "))
	return exitOK
}

// or returns v, or def when v is zero.
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// dryRun says what a load or a drop would change.
func dryRun(ctx context.Context, env *Env, t *loadTargets, verb string) int {
	found, err := t.inspect(ctx)
	if err != nil {
		return fail(env, err)
	}
	for _, e := range found {
		fmt.Fprint(env.Stderr, e.Describe(verb))
	}
	fmt.Fprintf(env.Stderr, "gbench workloads: --dry-run: nothing was changed\n")
	return exitOK
}

// runWorkloadsDrop is "gbench workloads drop".
func runWorkloadsDrop(env *Env, args []string) int {
	lo, fs, err := parseLoadArgs(args, false)
	if err != nil {
		return fail(env, err)
	}
	if lo.help {
		loadUsage(env.Stdout, fs, false)
		return exitOK
	}
	ctx, _, stop := signalContext(env)
	defer stop()
	t, err := lo.connect(ctx)
	if err != nil {
		return fail(env, err)
	}
	defer t.close()
	if lo.dryRun {
		return dryRun(ctx, env, t, "remove")
	}
	found, err := t.inspect(ctx)
	if err != nil {
		return fail(env, err)
	}
	for _, e := range found {
		fmt.Fprint(env.Stderr, e.Describe("remove"))
	}
	start := time.Now()
	if err := t.drop(ctx); err != nil {
		return fail(env, err)
	}
	fmt.Fprintf(env.Stderr, "done in %.2f s.\n", time.Since(start).Seconds())
	return exitOK
}
