-- dataset.sql: the tables, functions and data that every workload here reads.
-- Not a benchmark script: run it with psql (or let gbench load it, below).
--
-- Defines (idempotent: safe to run again, it never drops data):
--   items(id bigint PRIMARY KEY, v text)   the data: ids 1..N hold item_value(id, size);
--                                          ids -1 and -2 hold NULL values, for the contract
--                                          check only (reads use ids >= 1); id 0 is absent.
--   items_cache  UNLOGGED, empty           the cache table of coldfill-sql.sql
--   kv           UNLOGGED, keys 1..K       the table of the kv-*-sql.sql get/set workloads
--   item_value(id, size)                   the deterministic value of a row
--   mget(bigint[]) RETURNS json            the values of the keys as one JSON array, in
--                                          request order, duplicates kept, null for a
--                                          missing key or a NULL value
--   load_dataset(n_items, value_size, n_kv)  empties the three tables and fills them
--
-- Load by hand (the Redis side as the keys item:<id> and kv:<k>, same values):
--   psql -f workloads/dataset.sql -c 'CALL load_dataset(4096, 128, 100000)' \
--        -c 'VACUUM (FREEZE, ANALYZE) items, items_cache, kv'
--   redis-cli --scan --pattern 'cache:*' | xargs -r redis-cli unlink
--   psql -Atc "SELECT 'SET item:' || id || ' ' || v FROM items WHERE v IS NOT NULL
--              UNION ALL SELECT 'SET kv:' || k || ' ' || v FROM kv" | redis-cli --pipe
-- or let gbench do it: "gbench sandbox" loads throwaway servers, and the Go function
-- workloads.Load loads any pair of servers (it also removes stale item:*/kv:* keys).

CREATE TABLE IF NOT EXISTS items (id bigint PRIMARY KEY, v text);
CREATE UNLOGGED TABLE IF NOT EXISTS items_cache (id bigint PRIMARY KEY, v text NOT NULL);
CREATE UNLOGGED TABLE IF NOT EXISTS kv (k bigint PRIMARY KEY, v text NOT NULL);

CREATE OR REPLACE FUNCTION item_value(id bigint, size int) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT rpad(id || '-', size, md5(id::text)) $$;

-- One query. WITH ORDINALITY numbers the keys and the nested loop over the
-- primary key keeps their order, so ORDER BY k.ord costs no sort (json_agg
-- with ORDER BY would sort); the LEFT JOIN keeps duplicates and gives NULL
-- for a missing row. PL/pgSQL rather than LANGUAGE sql: PostgreSQL 15 plans
-- a SQL function's body again at every call from a new statement, PL/pgSQL
-- keeps the plan for the session. The generic plan is forced: for one key
-- the plan cache would otherwise judge a custom plan cheaper and plan every
-- call. Measured server time per call (docs/workloads.md): 1 key 14us
-- (LANGUAGE sql 90us, custom plans 50us), 64 keys 95-125us (sql 200-240us).
CREATE OR REPLACE FUNCTION mget(keys bigint[]) RETURNS json
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    RETURN array_to_json(ARRAY(
        SELECT i.v
        FROM unnest(keys) WITH ORDINALITY AS k(id, ord)
        LEFT JOIN items AS i ON i.id = k.id
        ORDER BY k.ord));
END
$$;

CREATE OR REPLACE PROCEDURE load_dataset(n_items int DEFAULT 4096, value_size int DEFAULT 128, n_kv int DEFAULT 100000)
LANGUAGE plpgsql AS $$
BEGIN
    IF n_items < 128 OR value_size < 1 OR n_kv < 1 THEN
        RAISE EXCEPTION 'load_dataset(%, %, %): need at least 128 items, 1-byte values and 1 kv key',
            n_items, value_size, n_kv;
    END IF;
    TRUNCATE items, items_cache, kv;
    INSERT INTO items SELECT g, item_value(g, value_size) FROM generate_series(1, n_items) AS g;
    INSERT INTO items VALUES (-1, NULL), (-2, NULL);
    INSERT INTO kv SELECT g, item_value(g, value_size) FROM generate_series(1, n_kv) AS g;
    ANALYZE items, items_cache, kv;
END
$$;
