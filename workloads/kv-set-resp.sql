-- kv-set-resp.sql: SET into Redis used as a key-value cache.
-- 10% of sets overwrite one of the K loaded keys, 90% create a new key, each with a
-- 128-byte value.
--
-- Measures: a cache set on Redis: one SET. Compare with kv-set-sql.sql.
-- Run:   gbench -f workloads/kv-set-resp.sql -D keys=100000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D keys=K: the number of kv keys loaded (--keys of the load, 100000 by default).
--   New keys are above 1000000000000, so they do not change the hit rate of the gets;
--   Redis grows until the next load.
\if random(1, 100) <= 10
\set k random(1, :keys)
\else
\set k random(1000000000001, 9000000000000000000)
\endif
\resp SET gbench:kv::k 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
