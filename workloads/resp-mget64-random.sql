-- resp-mget64-random.sql: read 64 distinct random keys from 1..N (-D items=N),
-- with one Redis command, MGET gbench:item:<id>...
--
-- Measures: the RESP path: one MGET command, one array reply in request order.
-- Run:   gbench -f workloads/resp-mget64-random.sql -D items=4096 --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the keys gbench:item:1..gbench:item:N in Redis (gbench sandbox or workloads.Load load them).
--   -D items=N: the number of rows loaded, 4096 by default (gbench sandbox sets it).
\set keys random_keys(1, :items, 64)
\resp MGET gbench:item::keys
