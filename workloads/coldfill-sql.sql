-- coldfill-sql.sql: cache-aside over an UNLOGGED PostgreSQL table that starts empty.
-- Read one random item from gbench.items_cache; on a miss copy the row from
-- gbench.items into the cache (INSERT ... SELECT ... RETURNING v, so the client gets
-- the value).
--
-- Measures: how fast a cold PostgreSQL cache table fills and how throughput climbs as
--   the hit rate rises; watch it with -P 1. A miss costs two statements, a hit one.
-- Run:   gbench -n -M prepared -f workloads/coldfill-sql.sql -D items=4096 -c 64 -T 10 -P 1 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
--   Loading empties gbench.items_cache; TRUNCATE gbench.items_cache starts cold again.
\set k random(1, :items)
\set hit 0
SELECT 1 AS hit, v FROM gbench.items_cache WHERE id = :k \aset
\if :hit = 0
INSERT INTO gbench.items_cache SELECT id, v FROM gbench.items WHERE id = :k ON CONFLICT (id) DO NOTHING RETURNING v;
\endif
