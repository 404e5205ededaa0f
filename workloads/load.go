package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// Defaults used when the matching Options field is zero.
const (
	DefaultItems     = 4096   // rows, as in the reference
	DefaultValueSize = 128    // bytes per value, as in the reference
	DefaultKeys      = 100000 // keys of the kv get/set comparison
	// DefaultSessions is the article's UUID keyspace for a quick run: 100,000
	// sessions (the article has 30 million; Options.Sessions scales it).
	DefaultSessions = 100000
	// DefaultYCSBRecords is YCSB's default recordcount.
	DefaultYCSBRecords = 1000
	// DefaultYCSBFieldLength is YCSB's default fieldlength (bytes).
	DefaultYCSBFieldLength = 100
)

// Limits of Options.
const (
	// MinItems is the smallest dataset: the update mixes write ids 1..128.
	MinItems = 128
	// MaxValueSize bounds a value; a cache holds small values.
	MaxValueSize = 1 << 20
	// MaxWarehouses bounds Options.Warehouses: about 100 MB each.
	MaxWarehouses = 10000
	// maxCount bounds Items and Keys: ids and keys are int in the SQL.
	maxCount = 1<<31 - 1
)

// Options says what Load loads. The zero value loads the reference
// dataset.
type Options struct {
	// Items is the number of rows of items, ids 1..Items, and of Redis keys
	// item:1..item:Items. Default DefaultItems, at least MinItems.
	Items int
	// ValueSize is the length in bytes of every value (see Value). Default
	// DefaultValueSize, at most MaxValueSize.
	ValueSize int
	// Keys is the number of keys of the kv workloads: rows 1..Keys of kv
	// and kv_logged and the Redis keys kv:1..kv:Keys (the command line's
	// --keyspace). Default DefaultKeys.
	Keys int
	// Sessions is the article's UUID keyspace: rows uuid(1..Sessions) of
	// sessions and sessions_logged and the Redis keys session:<uuid(n)>
	// (--sessions). Default DefaultSessions.
	Sessions int
	// YCSBRecords is the number of YCSB records: rows 'user1'..'userR' of
	// gbench.usertable and the Redis hashes gbench:ycsb:user1..userR, 10
	// fields each. Default DefaultYCSBRecords.
	YCSBRecords int
	// YCSBFieldLength is the length in bytes of every field of a YCSB
	// record. Default DefaultYCSBFieldLength, at most MaxValueSize.
	YCSBFieldLength int
	// Warehouses is the scale of the TPC-C-like data (tpcc.sql): 0, the
	// default, loads none and leaves an earlier load's tables alone. It
	// needs PostgreSQL; Redis holds no TPC-C-like data.
	Warehouses int
	// Tagged also sets, in Redis, a hash-tagged copy of every item,
	// TaggedItemKey(id) with the item's value: the keys of one group of
	// TagGroup ids share a slot, so that a cluster runs an MGET of them
	// without a split (resp-mget*-tagged.sql). PostgreSQL is the same.
	Tagged bool
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	o.Items = or(o.Items, DefaultItems)
	o.ValueSize = or(o.ValueSize, DefaultValueSize)
	o.Keys = or(o.Keys, DefaultKeys)
	o.Sessions = or(o.Sessions, DefaultSessions)
	o.YCSBRecords = or(o.YCSBRecords, DefaultYCSBRecords)
	o.YCSBFieldLength = or(o.YCSBFieldLength, DefaultYCSBFieldLength)
	switch {
	case o.Items < MinItems || o.Items > maxCount:
		return o, fmt.Errorf("workloads: invalid item count %d: must be in range %d..%d", o.Items, MinItems, maxCount)
	case o.ValueSize < 1 || o.ValueSize > MaxValueSize:
		return o, fmt.Errorf("workloads: invalid value size %d: must be in range 1..%d", o.ValueSize, MaxValueSize)
	case o.Keys < 1 || o.Keys > maxCount:
		return o, fmt.Errorf("workloads: invalid key count %d: must be in range 1..%d", o.Keys, maxCount)
	case o.Sessions < 1 || o.Sessions > maxCount:
		return o, fmt.Errorf("workloads: invalid session count %d: must be in range 1..%d", o.Sessions, maxCount)
	case o.YCSBRecords < 1 || o.YCSBRecords > maxCount/10:
		return o, fmt.Errorf("workloads: invalid YCSB record count %d: must be in range 1..%d", o.YCSBRecords, maxCount/10)
	case o.Warehouses < 0 || o.Warehouses > MaxWarehouses:
		return o, fmt.Errorf("workloads: invalid warehouse count %d: must be in range 0..%d", o.Warehouses, MaxWarehouses)
	case o.YCSBFieldLength < 1 || o.YCSBFieldLength > MaxValueSize:
		return o, fmt.Errorf("workloads: invalid YCSB field length %d: must be in range 1..%d", o.YCSBFieldLength, MaxValueSize)
	}
	return o, nil
}

// Defines returns the -D settings ("name=value") the workloads need for
// data loaded with o: items=Items, keys=Keys, sessions=Sessions and
// recordcount=YCSBRecords, defaults filled in, and warehouses=Warehouses
// when it is set.
func (o Options) Defines() []string {
	o.Items = or(o.Items, DefaultItems)
	o.Keys = or(o.Keys, DefaultKeys)
	o.Sessions = or(o.Sessions, DefaultSessions)
	o.YCSBRecords = or(o.YCSBRecords, DefaultYCSBRecords)
	out := []string{"items=" + strconv.Itoa(o.Items), "keys=" + strconv.Itoa(o.Keys), "sessions=" + strconv.Itoa(o.Sessions),
		"recordcount=" + strconv.Itoa(o.YCSBRecords)}
	if o.Warehouses > 0 {
		out = append(out, "warehouses="+strconv.Itoa(o.Warehouses))
	}
	return out
}

// or returns v, or def when v is zero.
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Load is LoadLog without a log.
func Load(ctx context.Context, pg *pgsql.Client, redis net.Conn, o Options) error {
	return LoadLog(ctx, pg, redis, o, nil)
}

// LoadLog makes the dataset of every workload exist exactly as o
// describes, in PostgreSQL when pg is not nil and in Redis when redis is
// not nil; running it again is safe and gives the same state.
//
// It first looks at both servers (Inspect) and changes nothing on either
// when one holds, where the dataset goes, something gbench did not create:
// the error then wraps ErrForeign. Otherwise it writes to log what it is
// about to replace (or that there is nothing to replace), then progress
// lines in the manner of pgbench -i and a "done in" line; a nil log
// writes nothing. Lines from the two servers, which load concurrently, are
// whole but interleaved.
//
// In PostgreSQL it runs dataset.sql (the schema gbench: tables items,
// items_cache and kv, the functions item_value and mget, the procedure
// load_dataset, each marked with a comment), refills the tables
// server-side with generate_series, and vacuums them. In Redis, whose
// database is the one redis was dialed to (resp.Dial selects it), it
// writes the hash MarkerKey, removes the keys a previous load or run left
// (gbench:item:* and gbench:kv:* outside the loaded ranges, every
// gbench:cache:* key), sets gbench:item:1..Items and gbench:kv:1..Keys
// with pipelined MSETs, and records the time in MarkerKey. Nothing else is
// touched.
//
// The caller keeps ownership of both connections, which must not be in use
// elsewhere during the call; redis gets its deadline cleared when LoadLog
// returns. After an error, other than one for invalid options, a foreign
// object or a ctx that had already ended, a connection may be out of step
// with its server (pgconn closes it when ctx ends during a query): close
// both. A write error on log is returned after the load.
func LoadLog(ctx context.Context, pg *pgsql.Client, redis net.Conn, o Options, log io.Writer) error {
	return loadInto(ctx, pg, redisOf(redis), o, log)
}

// LoadClusterLog is LoadLog into a Redis Cluster's masters instead of
// one Redis: see RedisCluster.
func LoadClusterLog(ctx context.Context, pg *pgsql.Client, redis *RedisCluster, o Options, log io.Writer) error {
	var r redisStore
	if redis != nil {
		r = redis
	}
	return loadInto(ctx, pg, r, o, log)
}

// loadInto is LoadLog into a Redis or a cluster (nil: none).
func loadInto(ctx context.Context, pg *pgsql.Client, redis redisStore, o Options, log io.Writer) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	if pg == nil && redis == nil {
		return errors.New("workloads: nothing to load into: both connections are nil")
	}
	if pg == nil && o.Warehouses > 0 {
		return errors.New("workloads: the TPC-C-like data goes into PostgreSQL, and there is no PostgreSQL connection")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	found, err := inspectAll(ctx, pg, redis)
	if err != nil {
		return err
	}
	lg := &loadLog{w: log}
	for _, e := range found {
		lg.printf("%s", strings.TrimSuffix(e.Describe("replace"), "\n"))
	}
	start := time.Now()
	var errPG, errRedis error
	var tookPG, tookRedis string
	var wg sync.WaitGroup
	if pg != nil {
		wg.Go(func() { tookPG, errPG = loadPostgres(ctx, pg, o, !found[0].Found, lg) })
	}
	if redis != nil {
		wg.Go(func() { tookRedis, errRedis = redis.load(ctx, o, lg) })
	}
	wg.Wait()
	if errPG == nil && errRedis == nil {
		took := strings.Join(slices.DeleteFunc([]string{tookPG, tookRedis}, func(s string) bool { return s == "" }), "; ")
		lg.printf("done in %.2f s (%s).", time.Since(start).Seconds(), took)
	}
	return errors.Join(errPG, errRedis, lg.err)
}

// Describe says what a load would replace on e's server, when verb is
// "replace", or what Drop would remove, when verb is "remove": a heading
// line, then one indented line per item of e.Replaced. Each line ends in
// a newline.
func (e Existing) Describe(verb string) string {
	if !e.Found {
		what := "no schema " + Schema
		if e.Server == "Redis" {
			what = "no key of the dataset (" + KeyPrefix + "*)"
		}
		return fmt.Sprintf("%s: %s: nothing to %s\n", e.Server, what, verb)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %sing the dataset (%s):\n", e.Server, strings.TrimSuffix(verb, "e"), e.Loaded)
	for _, r := range e.Replaced {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	return b.String()
}

// loadLog writes LoadLog's lines; both servers' loaders share it.
type loadLog struct {
	mu  sync.Mutex
	w   io.Writer // nil: no log
	err error     // the first write error
}

// printf writes one line.
func (l *loadLog) printf(format string, args ...any) {
	if l.w == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = fmt.Fprintf(l.w, format+"\n", args...)
	}
}

// step runs one step of a server's load: its line, then f, timed into
// took.
func (l *loadLog) step(server, line, name string, took *[]string, f func() error) error {
	l.printf("%s: %s", server, line)
	start := time.Now()
	err := f()
	*took = append(*took, fmt.Sprintf("%s %.2f s", name, time.Since(start).Seconds()))
	return err
}

// loadPostgres creates the schema (fresh: it does not exist yet) and fills
// the tables. It returns the steps' times.
func loadPostgres(ctx context.Context, pg *pgsql.Client, o Options, fresh bool, lg *loadLog) (string, error) {
	schema, err := Text(DatasetFile)
	if err != nil {
		return "", err
	}
	tables := make([]string, len(datasetTables))
	for i, t := range datasetTables {
		tables[i] = Schema + "." + t
	}
	create := "creating the schema " + Schema + ", its tables and functions..."
	if !fresh {
		create = "checking the schema " + Schema + ", redefining its functions..."
	}
	var took []string
	steps := []struct{ line, name, sql string }{
		{create, "create", schema},
		{"generating data (server-side)...", "server-side generate",
			fmt.Sprintf("CALL %s.load_dataset(%d, %d, %d)", Schema, o.Items, o.ValueSize, o.Keys)},
		{fmt.Sprintf("generating %d sessions (server-side)...", o.Sessions), "sessions",
			fmt.Sprintf("CALL %s.load_sessions(%d)", Schema, o.Sessions)},
		{fmt.Sprintf("generating %d YCSB records (server-side)...", o.YCSBRecords), "ycsb",
			fmt.Sprintf("CALL %s.load_ycsb(%d, %d)", Schema, o.YCSBRecords, o.YCSBFieldLength)},
	}
	if o.Warehouses > 0 {
		steps = append(steps, tpccSteps(o.Warehouses)...)
		tables = append(tables, tpccTables()...)
	}
	steps = append(steps, struct{ line, name, sql string }{
		"vacuuming...", "vacuum", "VACUUM (FREEZE, ANALYZE) " + strings.Join(tables, ", ")}) // alone: VACUUM refuses a transaction block
	for _, s := range steps {
		err := lg.step("PostgreSQL", s.line, s.name, &took, func() error {
			return pg.Exec(ctx, s.sql)
		})
		if err != nil {
			return "", fmt.Errorf("workloads: loading PostgreSQL: %w", ctxErr(ctx, err))
		}
	}
	return "PostgreSQL: " + strings.Join(took, ", "), nil
}

// progressEvery is how many keys go between two progress lines, as
// pgbench -i reports every 100000 rows.
const progressEvery = 100000

// loadRedis marks the database, removes stale keys and sets the items and
// kv keys. It returns the steps' times.
func loadRedis(ctx context.Context, rc *resp.Client, o Options, lg *loadLog) (string, error) {
	defer rc.Bind(ctx)()
	var took []string
	err := lg.step("Redis", "removing old keys...", "remove", &took, func() error {
		if err := setMarker(rc, o); err != nil {
			return err
		}
		return unlinkMatching(rc, KeyPrefix+"*", stale(o))
	})
	if err == nil {
		err = lg.step("Redis", "setting keys...", "set", &took, func() error { return setKeys(rc, o, lg) })
	}
	if err == nil {
		err = lg.step("Redis", fmt.Sprintf("setting %d YCSB records...", o.YCSBRecords), "ycsb", &took, func() error { return setYCSB(rc, o) })
	}
	if err == nil {
		err = lg.step("Redis", fmt.Sprintf("setting %d sessions...", o.Sessions), "sessions", &took, func() error {
			return msetWith(rc, 1, int64(o.Sessions), func(n int64) (string, string) {
				return sessionPrefix + UUID(n), SessionValue(n)
			}, func(int64) error { return nil })
		})
	}
	if err == nil {
		_, _, err = rc.Call("HSET", MarkerKey, markerLoaded, time.Now().Format("2006-01-02 15:04:05 -07:00"))
	}
	if err != nil {
		return "", fmt.Errorf("workloads: loading Redis: %w", ctxErr(ctx, err))
	}
	return "Redis: " + strings.Join(took, ", "), nil
}

// setKeys sets the items and the kv keys, writing a progress line every
// progressEvery keys and at the end.
func setKeys(rc *resp.Client, o Options, lg *loadLog) error {
	total := int64(o.Items) + int64(o.Keys)
	if o.Tagged {
		total += int64(o.Items)
	}
	start, set, next := time.Now(), int64(0), int64(progressEvery)
	done := func(n int64) error {
		if set += n; set >= next || set == total {
			elapsed := time.Since(start).Seconds()
			lg.printf("Redis: %d of %d keys (%d%%) done (elapsed %.2f s, remaining %.2f s)",
				set, total, set*100/total, elapsed, float64(total-set)*elapsed/float64(set))
			next = (set/progressEvery + 1) * progressEvery
		}
		return nil
	}
	if err := mset(rc, itemPrefix, 1, int64(o.Items), o.ValueSize, done); err != nil {
		return err
	}
	if o.Tagged {
		err := msetWith(rc, 1, int64(o.Items), func(id int64) (string, string) { return TaggedItemKey(id), Value(id, o.ValueSize) }, done)
		if err != nil {
			return err
		}
	}
	return mset(rc, kvPrefix, 1, int64(o.Keys), o.ValueSize, done)
}

// stale returns a filter for the dataset's keys that a load of o must
// remove: items and kv keys outside the loaded ranges, every cache key,
// every YCSB key and every session (the load sets them again: a UUID does
// not say its n).
func stale(o Options) func(string) bool {
	items, kv := outside(itemPrefix, o.Items), outside(kvPrefix, o.Keys)
	return func(key string) bool {
		switch {
		case strings.HasPrefix(key, itemPrefix):
			return items(key)
		case strings.HasPrefix(key, kvPrefix):
			return kv(key)
		case strings.HasPrefix(key, taggedPrefix):
			return !o.Tagged || !isTaggedItem(key, o.Items)
		}
		return strings.HasPrefix(key, cachePrefix) || strings.HasPrefix(key, ycsbPrefix) || strings.HasPrefix(key, sessionPrefix)
	}
}

// outside returns a filter for keys prefix+id that are not prefix+1 ..
// prefix+n spelled canonically: the keys a load of n must remove.
func outside(prefix string, n int) func(string) bool {
	return func(key string) bool {
		id, err := strconv.ParseInt(key[len(prefix):], 10, 64)
		return err != nil || id < 1 || id > int64(n) || prefix+strconv.FormatInt(id, 10) != key
	}
}

// ctxErr puts ctx's error in front of err when ctx has ended: the i/o
// timeout of a cancelled call is the cancellation.
func ctxErr(ctx context.Context, err error) error {
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		<-ctx.Done() // the connection's deadline may fire before ctx's timer
	}
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// Drop removes what Load created, after the same check as Load (an error
// wrapping ErrForeign changes nothing): in PostgreSQL (when pg is not nil)
// the tables, functions and procedure of the schema gbench, then the
// schema, in one transaction (an object of the user's that depends on one
// of them makes it fail); in Redis (when redis is not nil) every key under
// the dataset's prefixes, then MarkerKey.
func Drop(ctx context.Context, pg *pgsql.Client, redis net.Conn) error {
	return dropAll(ctx, pg, redisOf(redis))
}

// DropCluster is Drop from a Redis Cluster's masters instead of one
// Redis.
func DropCluster(ctx context.Context, pg *pgsql.Client, redis *RedisCluster) error {
	var r redisStore
	if redis != nil {
		r = redis
	}
	return dropAll(ctx, pg, r)
}

func dropAll(ctx context.Context, pg *pgsql.Client, redis redisStore) error {
	if _, err := inspectAll(ctx, pg, redis); err != nil {
		return err
	}
	var errs []error
	if pg != nil {
		sql := fmt.Sprintf(`BEGIN;
DROP TABLE IF EXISTS %[1]s.items, %[1]s.items_cache, %[1]s.kv, %[1]s.kv_logged, %[1]s.sessions, %[1]s.sessions_logged, %[1]s.usertable, %[2]s;
DROP SEQUENCE IF EXISTS %[1]s.ycsb_seq;
DROP FUNCTION IF EXISTS %[1]s.mget(bigint[]), %[1]s.item_value(bigint, int), %[1]s.tpcc_last_name(int),
    %[1]s.uuid(bigint), %[1]s.session_value(bigint),
    %[1]s.tpcc_new_order(int, int, int, int, boolean, int[]), %[1]s.tpcc_delivery(int, int);
DROP PROCEDURE IF EXISTS %[1]s.load_dataset(int, int, int), %[1]s.load_ycsb(int, int), %[1]s.load_sessions(int), %[1]s.tpcc_load(text, int);
DROP SCHEMA IF EXISTS %[1]s;
COMMIT`, Schema, strings.Join(tpccTables(), ", "))
		if err := pg.Exec(ctx, sql); err != nil {
			errs = append(errs, fmt.Errorf("workloads: dropping from PostgreSQL: %w", ctxErr(ctx, err)))
		}
	}
	if redis != nil {
		errs = append(errs, redis.drop(ctx))
	}
	return errors.Join(errs...)
}

// dropRedis removes every key Load or a workload may have set, the marker
// last.
func dropRedis(ctx context.Context, rc *resp.Client) error {
	defer rc.Bind(ctx)()
	err := unlinkMatching(rc, KeyPrefix+"*", func(key string) bool {
		return slices.ContainsFunc(dataPrefixes, func(p string) bool { return strings.HasPrefix(key, p) })
	})
	if err == nil {
		_, _, err = rc.Call("UNLINK", MarkerKey)
	}
	if err != nil {
		return fmt.Errorf("workloads: dropping from Redis: %w", ctxErr(ctx, err))
	}
	return nil
}
