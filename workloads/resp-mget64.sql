-- resp-mget64.sql: read the fixed keys 1..64 as in the reference matrix,
-- with one Redis command, MGET gbench:item:<id>...
--
-- Measures: the RESP path: one MGET command, one array reply in request order.
-- Run:   gbench -f workloads/resp-mget64.sql --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the keys gbench:item:1..gbench:item:N in Redis (gbench sandbox or workloads.Load load them).
\set keys range(1, 64)
\resp MGET gbench:item::keys
