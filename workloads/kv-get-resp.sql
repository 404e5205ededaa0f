-- kv-get-resp.sql: GET from Redis used as a key-value cache.
-- One random key from 1..1.25*K, so 80% of gets hit (Redis holds gbench:kv:1..K).
--
-- Measures: a cache get on Redis: one GET. Compare with kv-get-sql.sql.
-- Run:   gbench -f workloads/kv-get-resp.sql -D keys=100000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D keys=K: the number of kv keys loaded (--keys of the load, 100000 by default).
\set k random(1, :keys * 5 / 4)
\resp GET gbench:kv::k
