-- kv-set-sql-logged.sql: SET into a logged PostgreSQL table used as a key-value cache.
-- 10% of sets overwrite one of the K loaded keys, 90% insert a new key (an upsert,
-- INSERT ... ON CONFLICT DO UPDATE), each with a 128-byte value.
--
-- Measures: a cache set on PostgreSQL: one upsert on a logged table (WAL for the
--   data too, and index maintenance and a new row version). Compare with kv-set-resp.sql.
-- Run:   gbench -n -M prepared -f workloads/kv-set-sql-logged.sql -D keys=100000 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D keys=K: the number of kv keys loaded (--keys of the load, 100000 by default).
--   New keys are above 1000000000000, so they do not change the hit rate of the gets;
--   the table grows until the next load.
\if random(1, 100) <= 10
\set k random(1, :keys)
\else
\set k random(1000000000001, 9000000000000000000)
\endif
INSERT INTO gbench.kv_logged VALUES (:k, '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
