-- resp-mget64-tagged.sql: read keys 1..64 with one MGET of the tagged keys gbench:{item:0}:<id>.
-- resp-mget64.sql over keys that share one slot: a Redis Cluster runs it on one node, unsplit.
--
-- Measures: the RESP path: one MGET command, one array reply in request order, on the node of slot item:0.
-- Run:   gbench -f workloads/resp-mget64-tagged.sql --resp redis+cluster://127.0.0.1:7000 -c 64 -T 10
-- Needs: the dataset with its tagged copies: gbench workloads load --tagged --resp redis+cluster://127.0.0.1:7000
--   (one Redis works too: --resp redis://127.0.0.1:6379/0 in both commands).
\set keys range(1, 64)
\resp MGET gbench:{item:0}::keys
