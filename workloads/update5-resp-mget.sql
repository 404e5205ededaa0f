-- update5-resp-mget.sql: 95% reads of 16 hot keys with MGET, 5% write-through updates.
-- 95% of transactions read 16 distinct keys among ids 1..128 with one MGET; 5% update
-- one of those rows in PostgreSQL (the source of truth) and write the new value to
-- its Redis key (write-through).
--
-- Measures: the RESP path under writes: a write costs an UPDATE plus a SET, two servers
--   and two round trips. Use -r to see the three commands apart.
-- Run:   gbench -n -M prepared -f workloads/update5-resp-mget.sql --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -r DBNAME
-- Needs: the dataset in both: gbench workloads load --resp redis://127.0.0.1:6379/0 DBNAME
--   (or run it in gbench sandbox).
--   Two clients updating the same row may SET in the other order than they committed,
--   leaving Redis stale for that row, as a real write-through cache would.
\if random(1, 100) <= 5
\set k random(1, 128)
\set n random(1, 999999999)
UPDATE gbench.items SET v = rpad(:n::text || '-', octet_length(v), v) WHERE id = :k RETURNING v \gset
\resp SET gbench:item::k :v
\else
\set keys random_keys(1, 128, 16)
\resp MGET gbench:item::keys
\endif
