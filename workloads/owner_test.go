package workloads

import (
	"bytes"
	"context"
	"errors"
	"net"
	"regexp"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/resp"
)

// TestRefusesForeignObjects puts objects gbench did not create where the
// dataset goes and expects Load, dataset.sql run by hand and Drop to refuse,
// naming them, and to change nothing on either server.
func TestRefusesForeignObjects(t *testing.T) {
	pg := scratchPG(t)
	redis, _ := scratchRedis(t)
	ctx := context.Background()
	schema, _ := Text(DatasetFile)
	refused := func(t *testing.T, want ...string) {
		t.Helper()
		for name, err := range map[string]error{
			"Load": Load(ctx, pg, redis, Options{Keys: testKeys}),
			"Drop": Drop(ctx, pg, redis),
		} {
			if !errors.Is(err, ErrForeign) {
				t.Fatalf("%s: %v, want an error wrapping ErrForeign", name, err)
			}
			for _, w := range append(want, "nothing was changed") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %v\ndoes not say %q", name, err, w)
				}
			}
		}
	}
	// The case: a table items of the user's in public, with a NOT
	// NULL column the dataset does not fill.
	pgExec(t, pg, "CREATE TABLE public.items (id int, name text NOT NULL); INSERT INTO public.items VALUES (1, 'mine')")
	defer func() {
		if got := pgExec(t, pg, "SELECT name FROM public.items"); len(got) != 1 || string(got[0][0]) != "mine" {
			t.Errorf("public.items changed: %q", got)
		}
	}()

	t.Run("schema of the user's", func(t *testing.T) {
		pgExec(t, pg, "CREATE SCHEMA gbench; CREATE TABLE gbench.items (x int)")
		defer pgExec(t, pg, "DROP SCHEMA gbench CASCADE")
		refused(t, `schema "gbench" exists and gbench did not create it`)
		if err := pg.Exec(ctx, schema); err == nil || !strings.Contains(err.Error(), `schema "gbench" exists and gbench did not create it`) {
			t.Errorf("dataset.sql over a schema of the user's: %v", err)
		}
		pgExec(t, pg, "ROLLBACK")
		if got := pgExec(t, pg, "SELECT count(*) FROM pg_class WHERE relnamespace = 'gbench'::regnamespace"); string(got[0][0]) != "1" {
			t.Errorf("%s objects in schema gbench, want the user's table alone", got[0][0])
		}
		checkNoRedisDataset(t, redis)
	})

	if err := Load(ctx, pg, nil, Options{Keys: testKeys}); err != nil {
		t.Fatal(err)
	}
	t.Run("objects of the user's in gbench's schema", func(t *testing.T) {
		pgExec(t, pg, "CREATE TABLE gbench.notes (x int); CREATE INDEX items_v ON gbench.items (v); DELETE FROM gbench.items WHERE id = 1")
		defer pgExec(t, pg, "DROP TABLE gbench.notes; DROP INDEX gbench.items_v")
		refused(t, "schema \"gbench\" holds objects gbench did not create: index gbench.items_v, table gbench.notes")
		if err := pg.Exec(ctx, schema); err == nil || !strings.Contains(err.Error(), "index gbench.items_v, table gbench.notes") {
			t.Errorf("dataset.sql over objects of the user's: %v", err)
		}
		pgExec(t, pg, "ROLLBACK")
		if got := pgExec(t, pg, "SELECT count(*) FROM gbench.items"); string(got[0][0]) != "4097" {
			t.Errorf("gbench.items holds %s rows, want the 4097 left before the refused load", got[0][0])
		}
	})

	for _, c := range []struct {
		name string
		cmd  []string
		want string
	}{
		{"keys without the marker", []string{"SET", itemPrefix + "7", "mine"}, `keys under gbench:item:, gbench:kv:, gbench:cache:, gbench:ycsb:, gbench:session:, gbench:{item: (such as "gbench:item:7") but no hash gbench:dataset`},
		{"a tagged item without the marker", []string{"SET", TaggedItemKey(7), "mine"}, `keys under gbench:item:, gbench:kv:, gbench:cache:, gbench:ycsb:, gbench:session:, gbench:{item: (such as "gbench:{item:0}:7") but no hash gbench:dataset`},
		{"a YCSB hash without the marker", []string{"SET", ycsbRecordPrefix + "1", "mine"}, `keys under gbench:item:, gbench:kv:, gbench:cache:, gbench:ycsb:, gbench:session:, gbench:{item: (such as "gbench:ycsb:user1") but no hash gbench:dataset`},
		{"a marker of the user's", []string{"SET", MarkerKey, "mine"}, "the key gbench:dataset (a string) has no field created-by = gbench"},
	} {
		t.Run(c.name, func(t *testing.T) {
			redisCall(t, redis, c.cmd...)
			defer redisCall(t, redis, "DEL", c.cmd[1])
			refused(t, c.want)
			if v, err := resp.NewClient(redis).Text("GET", c.cmd[1]); err != nil || v != "mine" {
				t.Errorf("GET %s = %q, %v after the refused load", c.cmd[1], v, err)
			}
		})
	}
	if err := Drop(ctx, pg, redis); err != nil {
		t.Fatal(err)
	}
	if got := pgExec(t, pg, "SELECT count(*) FROM pg_namespace WHERE nspname = 'gbench'"); string(got[0][0]) != "0" {
		t.Error("Drop left the schema gbench")
	}
}

// checkNoRedisDataset fails when Redis holds the marker or a data key.
func checkNoRedisDataset(t *testing.T, redis net.Conn) {
	t.Helper()
	n := 0
	if err := scanKeys(resp.NewClient(redis), KeyPrefix+"*", func(k string) {
		if k == MarkerKey || stale(Options{})(k) || strings.HasPrefix(k, itemPrefix) || strings.HasPrefix(k, kvPrefix) {
			n++
		}
	}); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		t.Errorf("Redis holds %d keys of the dataset", n)
	}
}

// TestLoadLogSaysWhatItReplaces loads twice and checks what LoadLog says
// before each load and while it loads.
func TestLoadLogSaysWhatItReplaces(t *testing.T) {
	pg := scratchPG(t)
	redis, _ := scratchRedis(t)
	ctx := context.Background()
	var first, second bytes.Buffer
	if err := LoadLog(ctx, pg, redis, Options{Keys: 200000, Sessions: 1000}, &first); err != nil {
		t.Fatal(err)
	}
	redisCall(t, redis, "SET", cachePrefix+"5", "x")
	pgExec(t, pg, "ALTER TABLE gbench.usertable SET UNLOGGED") // as the ycsb plan leaves it
	if err := LoadLog(ctx, pg, redis, Options{Items: 200, ValueSize: 16, Keys: 10}, &second); err != nil {
		t.Fatal(err)
	}
	if got := pgExec(t, pg, "SELECT relpersistence FROM pg_class WHERE oid = 'gbench.usertable'::regclass"); string(got[0][0]) != "p" {
		t.Errorf("usertable's persistence after a load: %q, want p (logged)", got[0][0])
	}
	t.Logf("first load:\n%s\nsecond load:\n%s", &first, &second)
	for _, c := range []struct {
		log  string
		want []string // regular expressions, each matching a whole line
	}{
		{first.String(), []string{
			`PostgreSQL: no schema gbench: nothing to replace`,
			`Redis: no key of the dataset \(gbench:\*\): nothing to replace`,
			`PostgreSQL: creating the schema gbench, its tables and functions\.\.\.`,
			`PostgreSQL: generating data \(server-side\)\.\.\.`,
			`PostgreSQL: vacuuming\.\.\.`,
			`Redis: removing old keys\.\.\.`,
			`Redis: setting keys\.\.\.`,
			`Redis: 10\d{4} of 204096 keys \(\d\d%\) done \(elapsed \d+\.\d\d s, remaining \d+\.\d\d s\)`,
			`Redis: 204096 of 204096 keys \(100%\) done \(elapsed \d+\.\d\d s, remaining 0\.00 s\)`,
			`done in \d+\.\d\d s \((PostgreSQL: create \d+\.\d\d s, server-side generate \d+\.\d\d s, sessions \d+\.\d\d s, ycsb \d+\.\d\d s, vacuum \d+\.\d\d s|Redis: remove \d+\.\d\d s, set \d+\.\d\d s, ycsb \d+\.\d\d s, sessions \d+\.\d\d s|; )+\)\.`,
			`PostgreSQL: generating 1000 YCSB records \(server-side\)\.\.\.`,
			`Redis: setting 1000 YCSB records\.\.\.`,
			`PostgreSQL: generating 1000 sessions \(server-side\)\.\.\.`,
			`Redis: setting 1000 sessions\.\.\.`,
		}},
		{second.String(), []string{
			`PostgreSQL: replacing the dataset \(4096 items of 128 bytes, 200000 kv keys, loaded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d\):`,
			`  table gbench\.items \(4098 rows\)`,
			`PostgreSQL: checking the schema gbench, redefining its functions\.\.\.`,
			`  table gbench\.items_cache \(0 rows\)`,
			`  table gbench\.kv \(200000 rows\)`,
			`  table gbench\.kv_logged \(200000 rows\)`,
			`  table gbench\.sessions \(1000 rows\)`,
			`  1000 keys gbench:session:\*`,
			`  function gbench\.item_value\(bigint,integer\)`,
			`  function gbench\.mget\(bigint\[\]\)`,
			`  function gbench\.load_dataset\(integer,integer,integer\)`,
			`Redis: replacing the dataset \(4096 items of 128 bytes, 200000 kv keys, 1000 sessions, 1000 YCSB records of 10 fields of 100 bytes, loaded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d\):`,
			`  table gbench\.usertable \(1000 rows\)`,
			`  sequence gbench\.ycsb_seq`,
			`  1002 keys gbench:ycsb:\*`,
			`  4096 keys gbench:item:\*`,
			`  200000 keys gbench:kv:\*`,
			`  1 key gbench:cache:\*`,
			`  the hash gbench:dataset`,
			`Redis: 210 of 210 keys \(100%\) done \(elapsed \d+\.\d\d s, remaining 0\.00 s\)`,
		}},
	} {
		for _, w := range c.want {
			if !regexp.MustCompile(`(?m)^` + w + `$`).MatchString(c.log) {
				t.Errorf("no line matching %s", w)
			}
		}
	}
	// "replacing" comes before anything changes.
	if i, j := strings.Index(second.String(), "replacing"), strings.Index(second.String(), "generating"); i < 0 || j < i {
		t.Error("the log does not say what it replaces before it starts")
	}
	checkLoaded(t, pg, redis, 200, 10)
}
