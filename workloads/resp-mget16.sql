-- resp-mget16.sql: read keys 1..16 with one MGET of the keys gbench:item:<id>.
-- The fixed keys of the reference matrix (resp-mget16-random.sql draws them at random).
--
-- Measures: the RESP path: one MGET command, one array reply in request order.
-- Run:   gbench -f workloads/resp-mget16.sql --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
\set keys range(1, 16)
\resp MGET gbench:item::keys
