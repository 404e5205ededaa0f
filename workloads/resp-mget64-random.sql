-- resp-mget64-random.sql: read 64 random keys with one MGET of the keys gbench:item:<id>.
-- Distinct keys drawn from 1..N (-D items=N), spread over the table.
--
-- Measures: the RESP path: one MGET command, one array reply in request order.
-- Run:   gbench -f workloads/resp-mget64-random.sql -D items=4096 --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
\set keys random_keys(1, :items, 64)
\resp MGET gbench:item::keys
