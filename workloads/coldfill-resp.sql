-- coldfill-resp.sql: cache-aside over Redis that starts empty, PostgreSQL behind it.
-- Read one random item from gbench:cache:<id>; on a miss SELECT it from PostgreSQL and
-- SET it in Redis.
--
-- Measures: how fast a cold Redis cache fills and how throughput climbs as the hit
--   rate rises; watch it with -P 1. A hit costs one round trip to Redis, a miss three
--   (Redis, PostgreSQL, Redis).
-- Run:   gbench -n -M prepared -f workloads/coldfill-resp.sql -D items=4096 --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -P 1 DBNAME
-- Needs: the dataset in both: gbench workloads load --resp redis://127.0.0.1:6379/0 DBNAME
--   (or run it in gbench sandbox).
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
--   Loading removes the gbench:cache:* keys; to start cold again without loading:
--   redis-cli --scan --pattern 'gbench:cache:*' | xargs -r redis-cli unlink
--   The miss test: gbench cannot yet ask whether a text reply is NULL (":c_reply IS
--   NULL" parses the value as a number), so EXISTS goes first in the same pipeline as
--   GET, one round trip, and its integer reply decides.
\set k random(1, :items)
\startpipeline
\resp EXISTS gbench:cache::k
\gset c_
\resp GET gbench:cache::k
\endpipeline
\if :c_reply = 0
SELECT v FROM gbench.items WHERE id = :k \gset
\resp SET gbench:cache::k :v
\endif
