-- resp-mget16-random-tagged.sql: read 16 random keys of one tag group with one MGET.
-- Group G (ids 64G+1..64G+64, one slot) drawn from the full groups of 1..N (-D items=N), then 16 distinct ids in it.
--
-- Measures: the RESP path: one MGET command, one array reply in request order, on the node of the group's slot.
-- Run:   gbench -f workloads/resp-mget16-random-tagged.sql -D items=4096 --resp redis+cluster://127.0.0.1:7000 -c 64 -T 10
-- Needs: the dataset with its tagged copies: gbench workloads load --tagged --resp redis+cluster://127.0.0.1:7000
--   (one Redis works too: --resp redis://127.0.0.1:6379/0 in both commands).
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
\set g random(0, :items / 64 - 1)
\set keys random_keys(:g * 64 + 1, :g * 64 + 64, 16)
\resp MGET gbench:{item::g}::keys
