-- resp-mget16-tagged.sql: read keys 1..16 with one MGET of the tagged keys gbench:{item:0}:<id>.
-- resp-mget16.sql over keys that share one slot: a Redis Cluster runs it on one node, unsplit.
--
-- Measures: the RESP path: one MGET command, one array reply in request order, on the node of slot item:0.
-- Run:   gbench -f workloads/resp-mget16-tagged.sql --resp redis+cluster://127.0.0.1:7000 -c 64 -T 10
-- Needs: the dataset with its tagged copies: gbench workloads load --tagged --resp redis+cluster://127.0.0.1:7000
--   (one Redis works too: --resp redis://127.0.0.1:6379/0 in both commands).
\set keys range(1, 16)
\resp MGET gbench:{item:0}::keys
