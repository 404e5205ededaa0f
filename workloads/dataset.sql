-- dataset.sql: the schema, tables and functions that every workload here reads.
-- Not a benchmark script: "gbench workloads load" runs it, or run it with psql (below).
--
-- Everything lives in the schema gbench, and every object carries a comment starting
-- with "gbench dataset": that is how gbench knows what it created. The file first
-- checks that the schema gbench either does not exist or is gbench's own and holds
-- nothing else, and stops with an error otherwise (one transaction: nothing changes).
-- Run again, it keeps the data; gbench.load_dataset replaces it.
--
-- Defines:
--   gbench.items(id bigint PRIMARY KEY, v text)  the data: ids 1..N hold item_value(id, size);
--                                        ids -1 and -2 hold NULL values, for the contract
--                                        check only (reads use ids >= 1); id 0 is absent.
--   gbench.items_cache  UNLOGGED, empty  the cache table of coldfill-sql.sql
--   gbench.kv    UNLOGGED, keys 1..K     the table of the kv-*-sql.sql get/set workloads
--   gbench.kv_logged  logged, keys 1..K  the same rows, for kv-*-sql-logged.sql
--   gbench.sessions(key varchar(255) PRIMARY KEY, value text)  UNLOGGED, the article's
--                                        table: keys uuid(1..S), values session_value(n)
--   gbench.sessions_logged               the same rows in a logged table
--   gbench.uuid(n)                       script/'s uuid(n): the keys of the sessions
--   gbench.session_value(n)              the session object loaded for uuid(n)
--   gbench.load_sessions(n_sessions)     empties both session tables and fills them
--   gbench.item_value(id, size)          the deterministic value of a row
--   gbench.mget(bigint[]) RETURNS json   the values of the keys as one JSON array, in
--                                        request order, duplicates kept, null for a
--                                        missing key or a NULL value
--   gbench.load_dataset(n_items, value_size, n_kv)  empties the three tables, fills them
--                                        and records the sizes in the schema's comment
--   gbench.usertable(ycsb_key text PRIMARY KEY, field0 .. field9 text)  YCSB's table:
--                                        keys 'user1'..'userR', field f of record n
--                                        holds item_value(10 * n + f, field length)
--   gbench.ycsb_seq                      YCSB's insert counter: the number of the last
--                                        record inserted (R after a load)
--   gbench.load_ycsb(records, field_length)  empties usertable, fills it, sets ycsb_seq
-- In Redis the same values are the keys gbench:item:<id>, gbench:kv:<k> and
-- gbench:session:<uuid(n)>, the cold-fill
-- cache is gbench:cache:<id>, and the hash gbench:dataset marks the database as loaded.
-- YCSB's records are the hashes gbench:ycsb:user<n> (fields field0..field9), their order
-- the sorted set gbench:ycsb:index (member user<n>, score 0, read BYLEX), the insert counter
-- gbench:ycsb:count.
--
-- Load both servers (sizes as options: gbench workloads load --help):
--   gbench workloads load --resp redis://127.0.0.1:6379/0 DBNAME
-- gbench sandbox and gbench matrix --load load the same. PostgreSQL alone, by hand:
--   gbench workloads show dataset.sql > dataset.sql
--   psql -v ON_ERROR_STOP=1 -f dataset.sql -c 'CALL gbench.load_dataset(4096, 128, 100000)' \
--        -c 'CALL gbench.load_sessions(100000)' \
--        -c 'VACUUM (FREEZE, ANALYZE) gbench.items, gbench.items_cache, gbench.kv, gbench.kv_logged' DBNAME

BEGIN;

-- The ownership check. An object is gbench's when its comment starts with
-- "gbench dataset"; the objects of a schema are those that depend on it, plus
-- the indexes of its tables.
DO $check$
DECLARE
    foreign_objects text;
BEGIN
    IF EXISTS (SELECT FROM pg_catalog.pg_namespace
               WHERE nspname = 'gbench'
                 AND coalesce(pg_catalog.obj_description(oid, 'pg_namespace'), '') NOT LIKE 'gbench dataset%') THEN
        RAISE EXCEPTION 'schema "gbench" exists and gbench did not create it: it has no "gbench dataset" comment'
            USING HINT = 'Nothing was changed. Rename the schema (ALTER SCHEMA gbench RENAME TO ...), or load into another database.';
    END IF;
    SELECT string_agg(o.name, ', ' ORDER BY o.name) INTO foreign_objects
    FROM (SELECT pg_catalog.pg_describe_object(d.classid, d.objid, 0) AS name,
                 pg_catalog.obj_description(d.objid, d.classid::regclass::name) AS comment
          FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_namespace AS n ON n.oid = d.refobjid
          WHERE d.refclassid = 'pg_catalog.pg_namespace'::regclass AND n.nspname = 'gbench'
          UNION ALL
          SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::regclass, c.oid, 0),
                 pg_catalog.obj_description(c.oid, 'pg_class')
          FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
          WHERE n.nspname = 'gbench' AND c.relkind IN ('i', 'I')) AS o
    WHERE coalesce(o.comment, '') NOT LIKE 'gbench dataset%';
    IF foreign_objects IS NOT NULL THEN
        RAISE EXCEPTION 'schema "gbench" holds objects gbench did not create: %', foreign_objects
            USING HINT = 'Nothing was changed. Move them to another schema or drop them.';
    END IF;
END
$check$;

CREATE SCHEMA IF NOT EXISTS gbench;
DO $mark$
BEGIN
    IF coalesce(pg_catalog.obj_description('gbench'::regnamespace, 'pg_namespace'), '') NOT LIKE 'gbench dataset%' THEN
        COMMENT ON SCHEMA gbench IS 'gbench dataset: created by gbench, not loaded yet';
    END IF;
END
$mark$;

CREATE TABLE IF NOT EXISTS gbench.items (id bigint PRIMARY KEY, v text);
CREATE UNLOGGED TABLE IF NOT EXISTS gbench.items_cache (id bigint PRIMARY KEY, v text NOT NULL);
CREATE UNLOGGED TABLE IF NOT EXISTS gbench.kv (k bigint PRIMARY KEY, v text NOT NULL);
CREATE TABLE IF NOT EXISTS gbench.kv_logged (k bigint PRIMARY KEY, v text NOT NULL);
-- The article's table ("Postgres UNLOGGED instead of Redis"), UNLOGGED and logged.
CREATE UNLOGGED TABLE IF NOT EXISTS gbench.sessions (key varchar(255) PRIMARY KEY, value text);
CREATE TABLE IF NOT EXISTS gbench.sessions_logged (key varchar(255) PRIMARY KEY, value text);
COMMENT ON TABLE gbench.items IS 'gbench dataset: the items every read workload reads';
COMMENT ON TABLE gbench.items_cache IS 'gbench dataset: the cache table of coldfill-sql.sql';
COMMENT ON TABLE gbench.kv IS 'gbench dataset: the table of the kv-*-sql.sql workloads';
COMMENT ON TABLE gbench.kv_logged IS 'gbench dataset: the logged table of the kv-*-sql-logged.sql workloads';
DO $sessions_comment$
BEGIN
    -- load_sessions records the loaded count in these comments: keep it.
    IF coalesce(pg_catalog.obj_description('gbench.sessions'::regclass, 'pg_class'), '') NOT LIKE 'gbench dataset%' THEN
        COMMENT ON TABLE gbench.sessions IS 'gbench dataset: the UNLOGGED table of the session-*-sql.sql workloads, not loaded yet';
    END IF;
    IF coalesce(pg_catalog.obj_description('gbench.sessions_logged'::regclass, 'pg_class'), '') NOT LIKE 'gbench dataset%' THEN
        COMMENT ON TABLE gbench.sessions_logged IS 'gbench dataset: the logged table of the session-*-sql-logged.sql workloads';
    END IF;
END
$sessions_comment$;
COMMENT ON INDEX gbench.kv_logged_pkey IS 'gbench dataset';
COMMENT ON INDEX gbench.sessions_pkey IS 'gbench dataset';
COMMENT ON INDEX gbench.sessions_logged_pkey IS 'gbench dataset';
COMMENT ON INDEX gbench.items_pkey IS 'gbench dataset';
COMMENT ON INDEX gbench.items_cache_pkey IS 'gbench dataset';
COMMENT ON INDEX gbench.kv_pkey IS 'gbench dataset';

CREATE OR REPLACE FUNCTION gbench.item_value(id bigint, size int) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT rpad(id || '-', size, md5(id::text)) $$;
COMMENT ON FUNCTION gbench.item_value(bigint, int) IS 'gbench dataset: the value of an item';

-- uuid(n) as the script language computes it (script/strings.go): the MD5 of
-- 'gbench-uuid:' || n, version 8 in the 13th hex digit, the variant 0b10 in the
-- two top bits of the 17th.
CREATE OR REPLACE FUNCTION gbench.uuid(n bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-8' || substr(h, 14, 3) || '-'
             || substr('89ab', (strpos('0123456789abcdef', substr(h, 17, 1)) - 1) % 4 + 1, 1)
             || substr(h, 18, 3) || '-' || substr(h, 21, 12)
      FROM md5('gbench-uuid:' || n) AS h $$;
COMMENT ON FUNCTION gbench.uuid(bigint) IS 'gbench dataset: the key of session n, as uuid(n) in a script';

-- A small serialized session object, about 190 bytes (workloads.SessionValue).
CREATE OR REPLACE FUNCTION gbench.session_value(n bigint) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT '{"sid":"' || gbench.uuid(n) || '","user_id":' || n || ',"created":' || (1700000000 + n)
             || ',"ttl":3600,"roles":["user"],"csrf":"' || md5('gbench-csrf:' || n)
             || '","agent":"Mozilla/5.0 (gbench)"}' $$;
COMMENT ON FUNCTION gbench.session_value(bigint) IS 'gbench dataset: the session object loaded for uuid(n)';

-- One query. WITH ORDINALITY numbers the keys and the nested loop over the
-- primary key keeps their order, so ORDER BY k.ord costs no sort (json_agg
-- with ORDER BY would sort); the LEFT JOIN keeps duplicates and gives NULL
-- for a missing row. PL/pgSQL rather than LANGUAGE sql: PostgreSQL 15 plans
-- a SQL function's body again at every call from a new statement, PL/pgSQL
-- keeps the plan for the session. The generic plan is forced: for one key
-- the plan cache would otherwise judge a custom plan cheaper and plan every
-- call. Measured server time per call (docs/workloads.md): 1 key 14us
-- (LANGUAGE sql 90us, custom plans 50us), 64 keys 95-125us (sql 200-240us).
CREATE OR REPLACE FUNCTION gbench.mget(keys bigint[]) RETURNS json
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
    RETURN array_to_json(ARRAY(
        SELECT i.v
        FROM unnest(keys) WITH ORDINALITY AS k(id, ord)
        LEFT JOIN gbench.items AS i ON i.id = k.id
        ORDER BY k.ord));
END
$$;
COMMENT ON FUNCTION gbench.mget(bigint[]) IS 'gbench dataset: the values of keys as one JSON array, in request order';

CREATE OR REPLACE PROCEDURE gbench.load_dataset(n_items int DEFAULT 4096, value_size int DEFAULT 128, n_kv int DEFAULT 100000)
LANGUAGE plpgsql AS $$
BEGIN
    IF n_items < 128 OR value_size < 1 OR n_kv < 1 THEN
        RAISE EXCEPTION 'load_dataset(%, %, %): need at least 128 items, 1-byte values and 1 kv key',
            n_items, value_size, n_kv;
    END IF;
    TRUNCATE gbench.items, gbench.items_cache, gbench.kv, gbench.kv_logged;
    INSERT INTO gbench.items SELECT g, gbench.item_value(g, value_size) FROM generate_series(1, n_items) AS g;
    INSERT INTO gbench.items VALUES (-1, NULL), (-2, NULL);
    INSERT INTO gbench.kv SELECT g, gbench.item_value(g, value_size) FROM generate_series(1, n_kv) AS g;
    INSERT INTO gbench.kv_logged SELECT k, v FROM gbench.kv;
    ANALYZE gbench.items, gbench.items_cache, gbench.kv, gbench.kv_logged;
    EXECUTE format('COMMENT ON SCHEMA gbench IS %L',
        format('gbench dataset: %s items of %s bytes, %s kv keys, loaded %s',
               n_items, value_size, n_kv, to_char(now(), 'YYYY-MM-DD HH24:MI:SS TZH:TZM')));
END
$$;
COMMENT ON PROCEDURE gbench.load_dataset(int, int, int) IS 'gbench dataset: empties and fills the tables';

CREATE OR REPLACE PROCEDURE gbench.load_sessions(n_sessions int DEFAULT 100000)
LANGUAGE plpgsql AS $$
BEGIN
    IF n_sessions < 1 THEN
        RAISE EXCEPTION 'load_sessions(%): need at least 1 session', n_sessions;
    END IF;
    TRUNCATE gbench.sessions, gbench.sessions_logged;
    -- gbench.uuid and gbench.session_value, written out: calls of SQL
    -- functions with a FROM clause are not inlined, and cost 70us a row.
    INSERT INTO gbench.sessions
    SELECT u, '{"sid":"' || u || '","user_id":' || g || ',"created":' || (1700000000 + g)
              || ',"ttl":3600,"roles":["user"],"csrf":"' || md5('gbench-csrf:' || g)
              || '","agent":"Mozilla/5.0 (gbench)"}'
    FROM (SELECT g, substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-8' || substr(h, 14, 3) || '-'
                    || substr('89ab', (strpos('0123456789abcdef', substr(h, 17, 1)) - 1) % 4 + 1, 1)
                    || substr(h, 18, 3) || '-' || substr(h, 21, 12) AS u
          FROM (SELECT g, md5('gbench-uuid:' || g) AS h FROM generate_series(1, n_sessions) AS g) AS hashed) AS keyed;
    INSERT INTO gbench.sessions_logged SELECT key, value FROM gbench.sessions;
    ANALYZE gbench.sessions, gbench.sessions_logged;
    EXECUTE format('COMMENT ON TABLE gbench.sessions IS %L',
        format('gbench dataset: the UNLOGGED table of the session-*-sql.sql workloads, %s sessions loaded %s',
               n_sessions, to_char(now(), 'YYYY-MM-DD HH24:MI:SS TZH:TZM')));
END
$$;
COMMENT ON PROCEDURE gbench.load_sessions(int) IS 'gbench dataset: empties and fills the session tables';

-- YCSB. The key is text, as YCSB's JDBC binding has it, so a scan reads keys
-- in text order ('user10' follows 'user1'), byte by byte (COLLATE "C"), as
-- Redis's ZRANGE BYLEX reads gbench:ycsb:index.
CREATE TABLE IF NOT EXISTS gbench.usertable (ycsb_key text COLLATE "C" PRIMARY KEY,
    field0 text, field1 text, field2 text, field3 text, field4 text,
    field5 text, field6 text, field7 text, field8 text, field9 text);
CREATE SEQUENCE IF NOT EXISTS gbench.ycsb_seq;
COMMENT ON TABLE gbench.usertable IS 'gbench dataset: the table of the ycsb-*.sql workloads';
COMMENT ON INDEX gbench.usertable_pkey IS 'gbench dataset';
COMMENT ON SEQUENCE gbench.ycsb_seq IS 'gbench dataset: the YCSB insert counter, the last record number';

CREATE OR REPLACE PROCEDURE gbench.load_ycsb(records int DEFAULT 1000, field_length int DEFAULT 100)
LANGUAGE plpgsql AS $$
BEGIN
    IF records < 1 OR field_length < 1 THEN
        RAISE EXCEPTION 'load_ycsb(%, %): need at least 1 record and 1-byte fields', records, field_length;
    END IF;
    -- The ycsb plan makes the table UNLOGGED for some samples; a load
    -- leaves it logged, as created.
    IF (SELECT relpersistence FROM pg_catalog.pg_class WHERE oid = 'gbench.usertable'::regclass) = 'u' THEN
        ALTER TABLE gbench.usertable SET LOGGED;
    END IF;
    TRUNCATE gbench.usertable;
    INSERT INTO gbench.usertable
    SELECT 'user' || g, gbench.item_value(10 * g, field_length), gbench.item_value(10 * g + 1, field_length),
           gbench.item_value(10 * g + 2, field_length), gbench.item_value(10 * g + 3, field_length),
           gbench.item_value(10 * g + 4, field_length), gbench.item_value(10 * g + 5, field_length),
           gbench.item_value(10 * g + 6, field_length), gbench.item_value(10 * g + 7, field_length),
           gbench.item_value(10 * g + 8, field_length), gbench.item_value(10 * g + 9, field_length)
    FROM generate_series(1, records) AS g;
    PERFORM pg_catalog.setval('gbench.ycsb_seq', records);
    EXECUTE format('COMMENT ON TABLE gbench.usertable IS %L',
        format('gbench dataset: the table of the ycsb-*.sql workloads, %s records of 10 fields of %s bytes loaded %s',
               records, field_length, to_char(now(), 'YYYY-MM-DD HH24:MI:SS TZH:TZM')));
END
$$;
COMMENT ON PROCEDURE gbench.load_ycsb(int, int) IS 'gbench dataset: empties and fills the YCSB table';

COMMIT;
