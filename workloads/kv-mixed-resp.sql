-- kv-mixed-resp.sql: 80% gets and 20% sets on Redis used as a key-value cache.
-- kv-get-resp.sql's gets (80% hit) and kv-set-resp.sql's sets (10% overwrite a loaded
-- key, 90% create a new one).
--
-- Measures: a read-mostly cache on Redis; -r shows the get and set latencies apart.
--   Compare with kv-mixed-sql.sql.
-- Run:   gbench -f workloads/kv-mixed-resp.sql -D keys=100000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -r
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D keys=K: the number of kv keys loaded (--keys of the load, 100000 by default).
\if random(1, 100) <= 80
\set k random(1, :keys * 5 / 4)
\resp GET gbench:kv::k
\else
\if random(1, 100) <= 10
\set k random(1, :keys)
\else
\set k random(1000000000001, 9000000000000000000)
\endif
\resp SET gbench:kv::k 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
\endif
