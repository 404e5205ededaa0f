package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/gbench/gbench/engine/resp"
	"github.com/jackc/pgx/v5/pgconn"
)

// Defaults used when the matching Options field is zero.
const (
	DefaultItems     = 4096   // rows, as in the reference
	DefaultValueSize = 128    // bytes per value, as in the reference
	DefaultKeys      = 100000 // keys of the kv get/set comparison
)

// Limits of Options.
const (
	// MinItems is the smallest dataset: the update mixes write ids 1..128.
	MinItems = 128
	// MaxValueSize bounds a value; a cache holds small values.
	MaxValueSize = 1 << 20
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
	// Keys is the number of keys of the kv workloads: rows 1..Keys of kv and
	// the Redis keys kv:1..kv:Keys. Default DefaultKeys.
	Keys int
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	o.Items = or(o.Items, DefaultItems)
	o.ValueSize = or(o.ValueSize, DefaultValueSize)
	o.Keys = or(o.Keys, DefaultKeys)
	switch {
	case o.Items < MinItems || o.Items > maxCount:
		return o, fmt.Errorf("workloads: invalid item count %d: must be in range %d..%d", o.Items, MinItems, maxCount)
	case o.ValueSize < 1 || o.ValueSize > MaxValueSize:
		return o, fmt.Errorf("workloads: invalid value size %d: must be in range 1..%d", o.ValueSize, MaxValueSize)
	case o.Keys < 1 || o.Keys > maxCount:
		return o, fmt.Errorf("workloads: invalid key count %d: must be in range 1..%d", o.Keys, maxCount)
	}
	return o, nil
}

// Defines returns the -D settings ("name=value") the workloads need for
// data loaded with o: items=Items and keys=Keys, defaults filled in.
func (o Options) Defines() []string {
	o.Items = or(o.Items, DefaultItems)
	o.Keys = or(o.Keys, DefaultKeys)
	return []string{"items=" + strconv.Itoa(o.Items), "keys=" + strconv.Itoa(o.Keys)}
}

// or returns v, or def when v is zero.
func or(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Load makes the dataset of every workload exist exactly as o describes, in
// PostgreSQL when pg is not nil and in Redis when redis is not nil; running
// it again is safe and gives the same state.
//
// In PostgreSQL it runs dataset.sql (tables items, items_cache and kv, the
// functions item_value and mget, the procedure load_dataset), refills the
// tables server-side with generate_series, and vacuums them. In Redis, whose
// database is the one redis was dialed to (resp.Dial selects it), it removes
// the keys a previous load or run left (item:* and kv:* outside the loaded
// ranges, every cache:* key), then sets item:1..item:Items and
// kv:1..kv:Keys with pipelined MSETs. Nothing else is touched.
//
// The two servers load concurrently. The caller keeps ownership of both
// connections, which must not be in use elsewhere during the call; redis
// gets its deadline cleared when Load returns. After an error, other than
// one for invalid options or a ctx that had already ended, a connection may
// be out of step with its server (pgconn closes it when ctx ends during a
// query): close both.
func Load(ctx context.Context, pg *pgconn.PgConn, redis net.Conn, o Options) error {
	o, err := o.withDefaults()
	if err != nil {
		return err
	}
	if pg == nil && redis == nil {
		return errors.New("workloads: nothing to load into: both connections are nil")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	var errPG, errRedis error
	var wg sync.WaitGroup
	if pg != nil {
		wg.Go(func() { errPG = loadPostgres(ctx, pg, o) })
	}
	if redis != nil {
		wg.Go(func() { errRedis = loadRedis(ctx, resp.NewClient(redis), o) })
	}
	wg.Wait()
	return errors.Join(errPG, errRedis)
}

// loadPostgres creates the schema and fills the tables.
func loadPostgres(ctx context.Context, pg *pgconn.PgConn, o Options) error {
	schema, err := Text(DatasetFile)
	if err != nil {
		return err
	}
	for _, sql := range []string{
		schema,
		fmt.Sprintf("CALL load_dataset(%d, %d, %d)", o.Items, o.ValueSize, o.Keys),
		"VACUUM (FREEZE, ANALYZE) items, items_cache, kv", // alone: VACUUM refuses a transaction block
	} {
		if _, err := pg.Exec(ctx, sql).ReadAll(); err != nil {
			return fmt.Errorf("workloads: loading PostgreSQL: %w", ctxErr(ctx, err))
		}
	}
	return nil
}

// loadRedis removes stale keys and sets the items and kv keys.
func loadRedis(ctx context.Context, rc *resp.Client, o Options) error {
	defer rc.Bind(ctx)()
	err := unlinkMatching(rc, itemPrefix+"*", outside(itemPrefix, o.Items))
	if err == nil {
		err = unlinkMatching(rc, kvPrefix+"*", outside(kvPrefix, o.Keys))
	}
	if err == nil {
		err = unlinkMatching(rc, cachePrefix+"*", func(string) bool { return true })
	}
	if err == nil {
		err = mset(rc, itemPrefix, 1, int64(o.Items), o.ValueSize)
	}
	if err == nil {
		err = mset(rc, kvPrefix, 1, int64(o.Keys), o.ValueSize)
	}
	if err != nil {
		return fmt.Errorf("workloads: loading Redis: %w", ctxErr(ctx, err))
	}
	return nil
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

// Drop removes what Load created: in PostgreSQL (when pg is not nil) the
// tables items, items_cache and kv, the functions mget and item_value and
// the procedure load_dataset; in Redis (when redis is not nil) every
// item:*, cache:* and kv:* key of the selected database.
func Drop(ctx context.Context, pg *pgconn.PgConn, redis net.Conn) error {
	var errs []error
	if pg != nil {
		const sql = `DROP TABLE IF EXISTS items, items_cache, kv;
DROP FUNCTION IF EXISTS mget(bigint[]), item_value(bigint, int);
DROP PROCEDURE IF EXISTS load_dataset(int, int, int)`
		if _, err := pg.Exec(ctx, sql).ReadAll(); err != nil {
			errs = append(errs, fmt.Errorf("workloads: dropping from PostgreSQL: %w", ctxErr(ctx, err)))
		}
	}
	if redis != nil {
		errs = append(errs, dropRedis(ctx, resp.NewClient(redis)))
	}
	return errors.Join(errs...)
}

// dropRedis removes every key Load or a workload may have set.
func dropRedis(ctx context.Context, rc *resp.Client) error {
	defer rc.Bind(ctx)()
	for _, prefix := range []string{itemPrefix, cachePrefix, kvPrefix} {
		if err := unlinkMatching(rc, prefix+"*", func(string) bool { return true }); err != nil {
			return fmt.Errorf("workloads: dropping from Redis: %w", ctxErr(ctx, err))
		}
	}
	return nil
}
