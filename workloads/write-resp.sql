-- write-resp.sql: the write of the RESP path: UPDATE in PostgreSQL, then SET in Redis.
-- PostgreSQL is the source of truth; the new value is written through to Redis.
--
-- Measures: what a write costs when Redis caches PostgreSQL: write-sql.sql's UPDATE
--   plus a SET, two servers, two round trips. Compare with write-sql.sql; kv-set-*.sql
--   measure a cache write alone.
-- Run:   gbench -n -M prepared -f workloads/write-resp.sql -D items=4096 --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -r DBNAME
-- Needs: the dataset in both: gbench workloads load --resp redis://127.0.0.1:6379/0 DBNAME
--   (or run it in gbench sandbox).
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
\set k random(1, :items)
\set n random(1, 999999999)
UPDATE gbench.items SET v = rpad(:n::text || '-', octet_length(v), v) WHERE id = :k RETURNING v \gset
\resp SET gbench:item::k :v
