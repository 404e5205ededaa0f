-- kv-mixed-sql.sql: 80% gets and 20% sets on an UNLOGGED PostgreSQL table as a cache.
-- kv-get-sql.sql's gets (80% hit) and kv-set-sql.sql's sets (10% overwrite a loaded
-- key, 90% insert a new one).
--
-- Measures: a read-mostly cache on PostgreSQL; -r shows the get and set latencies
--   apart. Compare with kv-mixed-resp.sql.
-- Run:   gbench -n -M prepared -f workloads/kv-mixed-sql.sql -D keys=100000 -c 64 -T 10 -r DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D keys=K: the number of kv keys loaded (--keys of the load, 100000 by default).
\if random(1, 100) <= 80
\set k random(1, :keys * 5 / 4)
SELECT v FROM gbench.kv WHERE k = :k;
\else
\if random(1, 100) <= 10
\set k random(1, :keys)
\else
\set k random(1000000000001, 9000000000000000000)
\endif
INSERT INTO gbench.kv VALUES (:k, '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef') ON CONFLICT (k) DO UPDATE SET v = excluded.v;
\endif
