package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
)

// testKeys keeps the kv part of the test dataset small.
const testKeys = 1000

// testSessions keeps the article's sessions of the test dataset small.
const testSessions = 500

// scratchPG connects to a new database on the GBENCH_TEST_PG server,
// dropped when the test ends. The name carries the process id, so that
// engineers running the suite at once do not collide.
func scratchPG(t *testing.T) *pgsql.Client {
	t.Helper()
	cfg, err := pgsql.ParseConfig(testsrv.NeedPostgres(t))
	if err != nil {
		t.Fatalf("GBENCH_TEST_PG: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := cfg.Open(ctx)
	if err != nil {
		t.Fatalf("PostgreSQL (GBENCH_TEST_PG) is up but refuses: %s", cfg.Redact(err.Error()))
	}
	db := fmt.Sprintf("gbench_workloads_%d", os.Getpid())
	drop := "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"
	if err := admin.Exec(ctx, drop+"; CREATE DATABASE "+db); err != nil {
		// CREATE DATABASE cannot run in the implicit transaction of a
		// multi-statement query; run them one by one.
		for _, sql := range []string{drop, "CREATE DATABASE " + db} {
			if err := admin.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin.Exec(ctx, drop); err != nil {
			t.Errorf("%s: %v", drop, err)
		}
		admin.Close()
	})
	conn, err := cfg.WithDatabase(db).Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// claimKey marks a Redis database as used by a run of these tests.
const claimKey = "gbench:workloads-test-claim"

// scratchRedis connects to a database of the GBENCH_TEST_REDIS server that
// no other run of these tests uses: the first of 9..15 whose claim key it
// can set, and the options to dial it again. When the test ends it removes
// the workload keys and the claim.
func scratchRedis(t *testing.T) (net.Conn, resp.Options) {
	t.Helper()
	o, err := resp.ParseURL(testsrv.NeedRedis(t))
	if err != nil {
		t.Fatalf("GBENCH_TEST_REDIS: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		for db := 9; db <= 15; db++ {
			o.DB = db
			c, err := resp.Dial(ctx, o)
			if err != nil {
				t.Fatalf("Redis (GBENCH_TEST_REDIS) answers a PING but Dial fails: %v", err)
			}
			rc := resp.NewClient(c)
			vals, top, err := rc.Call("SET", claimKey, fmt.Sprint(os.Getpid()), "NX", "PX", "300000")
			if err != nil {
				t.Fatal(err)
			}
			if vals[top].Kind == resp.KindNull {
				c.Close()
				continue
			}
			t.Logf("Redis database %d", db)
			t.Cleanup(func() {
				if err := Drop(context.Background(), nil, c); err != nil {
					t.Error(err)
				}
				if _, _, err := rc.Call("DEL", claimKey); err != nil {
					t.Error(err)
				}
				c.Close()
			})
			return c, o
		}
		time.Sleep(time.Second)
	}
	t.Fatal("every Redis database 9..15 is claimed by another run of the tests")
	return nil, o
}

// redisCall runs one command on c and fails the test on an error.
func redisCall(t *testing.T, c net.Conn, args ...string) {
	t.Helper()
	if _, _, err := resp.NewClient(c).Call(args...); err != nil {
		t.Fatal(err)
	}
}

// pgExec runs sql on pg and fails the test on an error.
func pgExec(t *testing.T, pg *pgsql.Client, sql string) [][][]byte {
	t.Helper()
	rows, err := pg.SimpleQuery(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rows
}

// TestServers loads the dataset into the test servers, then checks Load,
// Contract on the real mget and on wrong ones, and reloading.
func TestServers(t *testing.T) {
	pg := scratchPG(t)
	redis, redisOpts := scratchRedis(t)
	ctx := context.Background()
	start := time.Now()
	if err := Load(ctx, pg, redis, Options{Keys: testKeys, Sessions: testSessions}); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded in %v", time.Since(start))
	t.Run("sessions", func(t *testing.T) { checkSessions(t, pg, redis) })

	t.Run("load", func(t *testing.T) { checkLoaded(t, pg, redis, DefaultItems, testKeys) })
	t.Run("values", func(t *testing.T) { checkValues(t, pg, redis) })
	t.Run("contract", func(t *testing.T) {
		if err := Contract(ctx, pg, redis); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("wrong mget", func(t *testing.T) { checkWrongMgets(t, pg, redis) })
	t.Run("wrong redis", func(t *testing.T) { checkWrongRedis(t, pg, redis) })
	t.Run("reload", func(t *testing.T) { checkReload(t, pg, redis) })
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := Load(ctx, pg, redis, Options{Keys: testKeys}); !errors.Is(err, context.Canceled) {
			t.Errorf("Load with a cancelled context: %v", err)
		}
		if err := Contract(ctx, pg, redis); !errors.Is(err, context.Canceled) {
			t.Errorf("Contract with a cancelled context: %v", err)
		}
		if err := Contract(context.Background(), pg, redis); err != nil {
			t.Errorf("the connections are not usable after a cancelled call: %v", err)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		c, err := resp.Dial(ctx, redisOpts) // this one ends out of step
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		const keys = 5_000_000
		err = Load(ctx, nil, c, Options{Keys: keys})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Load of %d keys with a 50ms timeout: %v after %v", keys, err, time.Since(start))
		}
		t.Logf("%v after %v", err, time.Since(start))
		// The load writes gbench:kv:1..keys in order: its last key missing
		// says that it stopped at the deadline, however fast the machine
		// is. (A load that ran to the end and only then looked at ctx
		// would have written it.)
		check, err := resp.Dial(context.Background(), redisOpts)
		if err != nil {
			t.Fatal(err)
		}
		defer check.Close()
		vals, top, err := resp.NewClient(check).Call("EXISTS", kvPrefix+strconv.Itoa(keys))
		if err != nil || vals[top].Kind != resp.KindInt {
			t.Fatalf("EXISTS: %v %+v", err, vals)
		}
		if vals[top].Int != 0 {
			t.Errorf("Load went on to its last key after the deadline")
		}
	})
}

// checkLoaded checks the counts and the cold caches after a load.
func checkLoaded(t *testing.T, pg *pgsql.Client, redis net.Conn, items, keys int) {
	t.Helper()
	row := pgExec(t, pg, `SELECT (SELECT count(*) FROM gbench.items WHERE v IS NOT NULL), (SELECT max(id) FROM gbench.items),
	(SELECT count(*) FROM gbench.items WHERE v IS NULL), (SELECT count(*) FROM gbench.items_cache), (SELECT count(*) FROM gbench.kv),
	(SELECT min(length(v)) = max(length(v)) FROM gbench.items)`)[0]
	want := fmt.Sprintf("%d %d 2 0 %d t", items, items, keys)
	if got := fmt.Sprintf("%s %s %s %s %s %s", row[0], row[1], row[2], row[3], row[4], row[5]); got != want {
		t.Errorf("PostgreSQL: values, max id, nulls, cache rows, kv rows, equal lengths = %s, want %s", got, want)
	}
	rc := resp.NewClient(redis)
	for prefix, want := range map[string]int{itemPrefix: items, kvPrefix: keys, cachePrefix: 0} {
		n := 0
		if err := unlinkMatching(rc, prefix+"*", func(string) bool { n++; return false }); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("Redis: %d %s* keys, want %d", n, prefix, want)
		}
	}
	checkYCSB(t, pg, rc, DefaultYCSBRecords, DefaultYCSBFieldLength)
}

// checkYCSB checks the YCSB records on both servers: their number, the
// counters, and that field f of record n holds YCSBValue in both.
func checkYCSB(t *testing.T, pg *pgsql.Client, rc *resp.Client, records, length int) {
	t.Helper()
	row := pgExec(t, pg, `SELECT count(*), (SELECT last_value FROM gbench.ycsb_seq) FROM gbench.usertable`)[0]
	if got, want := fmt.Sprintf("%s %s", row[0], row[1]), fmt.Sprintf("%d %d", records, records); got != want {
		t.Errorf("PostgreSQL: YCSB rows, ycsb_seq = %s, want %s", got, want)
	}
	for _, c := range [][]string{{"GET", ycsbCountKey}, {"ZCARD", ycsbIndexKey}} {
		if got, err := rc.Text(c...); err != nil || got != fmt.Sprint(records) {
			t.Errorf("Redis %s = %q, %v; want %d", strings.Join(c, " "), got, err, records)
		}
	}
	for _, n := range []int64{1, 7, int64(records)} {
		for _, f := range []int{0, 3, 9} {
			want := YCSBValue(n, f, length)
			col := fmt.Sprintf("field%d", f)
			sql := pgExec(t, pg, fmt.Sprintf("SELECT %s FROM gbench.usertable WHERE ycsb_key = 'user%d'", col, n))
			redis, err := rc.Text("HGET", fmt.Sprintf("%s%d", ycsbRecordPrefix, n), col)
			if len(sql) != 1 || string(sql[0][0]) != want || err != nil || redis != want {
				t.Errorf("record %d %s: PostgreSQL %q, Redis %q (%v), want %q", n, col, sql, redis, err, want)
			}
		}
	}
	// A scan reads the same keys on both: text order.
	rows := pgExec(t, pg, "SELECT ycsb_key FROM gbench.usertable WHERE ycsb_key >= 'user99' ORDER BY ycsb_key LIMIT 3")
	got, err := rc.Text("ZRANGE", ycsbIndexKey, "[user99", "+", "BYLEX", "LIMIT", "0", "3")
	if err != nil || len(rows) != 3 || got != fmt.Sprintf("%s\n%s\n%s", rows[0][0], rows[1][0], rows[2][0]) {
		t.Errorf("scan from user99: PostgreSQL %q, Redis %q (%v)", rows, got, err)
	}
}

// checkValues checks that Value, item_value and the Redis values agree.
func checkValues(t *testing.T, pg *pgsql.Client, redis net.Conn) {
	for _, size := range []int{1, 5, 128, 1000} {
		rows := pgExec(t, pg, fmt.Sprintf("SELECT id, gbench.item_value(id, %d) FROM unnest('{1,9,4096,-1,123456789}'::int8[]) id", size))
		for _, r := range rows {
			var id int64
			fmt.Sscan(string(r[0]), &id)
			if got := Value(id, size); got != string(r[1]) {
				t.Errorf("Value(%d, %d) = %q, item_value = %q", id, size, got, r[1])
			}
		}
	}
	got, err := mget(resp.NewClient(redis), itemPrefix, []int64{1, 4096, 0})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == nil || *got[0] != Value(1, 128) || got[1] == nil || *got[1] != Value(4096, 128) || got[2] != nil {
		t.Errorf("Redis MGET item:1 item:4096 item:0 = %s %s %s", show(got[0]), show(got[1]), show(got[2]))
	}
}

// wrongMgets are mget functions with the mistakes the contract must catch,
// and the case that shows each.
var wrongMgets = []struct {
	name, body, wantCase string
}{
	{"sorted by id", `SELECT array_to_json(ARRAY(SELECT i.v FROM unnest(keys) WITH ORDINALITY k(id, ord)
		LEFT JOIN gbench.items i ON i.id = k.id ORDER BY k.id))`, `case "reversed"`},
	{"duplicates dropped", `SELECT array_to_json(ARRAY(SELECT i.v FROM (SELECT DISTINCT ON (id) id, ord
		FROM unnest(keys) WITH ORDINALITY u(id, ord) ORDER BY id, ord) k LEFT JOIN gbench.items i ON i.id = k.id ORDER BY k.ord))`, `case "duplicates"`},
	{"missing keys dropped", `SELECT array_to_json(ARRAY(SELECT i.v FROM unnest(keys) WITH ORDINALITY k(id, ord)
		JOIN gbench.items i ON i.id = k.id ORDER BY k.ord))`, `case "missing key"`},
	{"NULL for an empty list", `SELECT json_agg(i.v ORDER BY k.ord) FROM unnest(keys) WITH ORDINALITY k(id, ord)
		LEFT JOIN gbench.items i ON i.id = k.id`, `case "empty"`},
	{"nulls as empty strings", `SELECT array_to_json(ARRAY(SELECT coalesce(i.v, '') FROM unnest(keys) WITH ORDINALITY k(id, ord)
		LEFT JOIN gbench.items i ON i.id = k.id ORDER BY k.ord))`, `case "null value"`},
}

// checkWrongMgets replaces mget by wrong ones and expects Contract to name
// the case and the path, then puts the real one back.
func checkWrongMgets(t *testing.T, pg *pgsql.Client, redis net.Conn) {
	ctx := context.Background()
	for _, w := range wrongMgets {
		t.Run(w.name, func(t *testing.T) {
			pgExec(t, pg, "CREATE OR REPLACE FUNCTION gbench.mget(keys bigint[]) RETURNS json LANGUAGE sql STABLE AS $$"+w.body+"$$")
			err := Contract(ctx, pg, redis)
			if err == nil {
				t.Fatal("Contract passed")
			}
			t.Log(err)
			if msg := err.Error(); !strings.Contains(msg, w.wantCase) || !strings.Contains(msg, "sql-mget") {
				t.Errorf("the error does not name %s and sql-mget", w.wantCase)
			}
		})
	}
	schema, _ := Text(DatasetFile)
	pgExec(t, pg, schema)
	if err := Contract(ctx, pg, redis); err != nil {
		t.Fatalf("with the real mget back: %v", err)
	}
}

// checkWrongRedis breaks the Redis copy of the data and expects Contract to
// blame resp-mget, then reloads.
func checkWrongRedis(t *testing.T, pg *pgsql.Client, redis net.Conn) {
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		cmd      []string
		wantCase string
	}{
		{"changed value", []string{"SET", itemPrefix + "3", "stale"}, `case "in order"`},
		{"stale key past the end", []string{"SET", itemPrefix + "4097", "stale"}, `case "past the end"`},
		{"value for a NULL row", []string{"SET", itemPrefix + "-1", "x"}, `case "null value"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			redisCall(t, redis, c.cmd...)
			defer redisCall(t, redis, "DEL", c.cmd[1])
			err := Contract(ctx, pg, redis)
			if err == nil {
				t.Fatal("Contract passed")
			}
			if msg := err.Error(); !strings.Contains(msg, c.wantCase) || !strings.Contains(msg, "resp-mget") {
				t.Errorf("%v\ndoes not name %s and resp-mget", err, c.wantCase)
			}
		})
	}
	if err := Load(ctx, pg, redis, Options{Keys: testKeys}); err != nil {
		t.Fatal(err)
	}
}

// checkReload loads a different dataset over the first and back: stale
// rows and keys go, and the caches start cold again.
func checkReload(t *testing.T, pg *pgsql.Client, redis net.Conn) {
	ctx := context.Background()
	pgExec(t, pg, "INSERT INTO gbench.items_cache VALUES (1, 'x')")
	redisCall(t, redis, "SET", cachePrefix+"1", "x")
	redisCall(t, redis, "SET", kvPrefix+"1000000000001", "x")
	if err := Load(ctx, pg, redis, Options{Items: 200, ValueSize: 16, Keys: 10}); err != nil {
		t.Fatal(err)
	}
	checkLoaded(t, pg, redis, 200, 10)
	if err := Contract(ctx, pg, redis); err != nil {
		t.Fatal(err)
	}
	if err := Load(ctx, pg, redis, Options{Keys: testKeys}); err != nil {
		t.Fatal(err)
	}
	checkLoaded(t, pg, redis, DefaultItems, testKeys)
	if err := Contract(ctx, pg, redis); err != nil {
		t.Fatal(err)
	}
}

// checkSessions checks the article's dataset: both tables and Redis hold
// uuid(1..testSessions) with SessionValue, the keys PostgreSQL's gbench.uuid
// and script's uuid() compute alike, and ReadDataset reads the count back.
func checkSessions(t *testing.T, pg *pgsql.Client, redis net.Conn) {
	row := pgExec(t, pg, `SELECT (SELECT count(*) FROM gbench.sessions), (SELECT count(*) FROM gbench.sessions_logged),
		(SELECT count(*) FROM gbench.kv_logged), (SELECT relpersistence FROM pg_class WHERE oid = 'gbench.sessions'::regclass),
		(SELECT relpersistence FROM pg_class WHERE oid = 'gbench.sessions_logged'::regclass)`)[0]
	if got := fmt.Sprintf("%s %s %s %s %s", row[0], row[1], row[2], row[3], row[4]); got != fmt.Sprintf("%d %d %d u p", testSessions, testSessions, testKeys) {
		t.Errorf("sessions, sessions_logged, kv_logged rows and persistence: %s", got)
	}
	rc := resp.NewClient(redis)
	for _, n := range []int64{1, 2, 250, testSessions, -3, 1 << 40} {
		got := pgExec(t, pg, fmt.Sprintf("SELECT gbench.uuid(%d), gbench.session_value(%d)", n, n))[0]
		if string(got[0]) != UUID(n) || string(got[1]) != SessionValue(n) {
			t.Errorf("n=%d: PostgreSQL %s %s, Go %s %s", n, got[0], got[1], UUID(n), SessionValue(n))
		}
		if n < 1 || n > testSessions {
			continue
		}
		for _, table := range []string{"gbench.sessions", "gbench.sessions_logged"} {
			v := pgExec(t, pg, fmt.Sprintf("SELECT value FROM %s WHERE key = '%s'", table, UUID(n)))
			if len(v) != 1 || string(v[0][0]) != SessionValue(n) {
				t.Errorf("%s: session %d: %q", table, n, v)
			}
		}
		if v, err := rc.Text("GET", sessionPrefix+UUID(n)); err != nil || v != SessionValue(n) {
			t.Errorf("Redis: session %d: %q, %v", n, v, err)
		}
	}
	if l := len(SessionValue(testSessions)); l < 150 || l > 220 {
		t.Errorf("a session value is %d bytes, not the article's small object", l)
	}
	for _, src := range []struct {
		name string
		pg   *pgsql.Client
		r    net.Conn
	}{{"PostgreSQL", pg, nil}, {"Redis", nil, redis}} {
		d, err := ReadDataset(context.Background(), src.pg, src.r)
		if err != nil || d.Sessions != testSessions {
			t.Errorf("ReadDataset from %s: %d sessions, %v", src.name, d.Sessions, err)
		}
	}
}
