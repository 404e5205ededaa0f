-- update5-mget.sql: 95% reads of 16 hot keys with gbench.mget, 5% updates of one of them.
-- 95% of transactions read 16 distinct keys among ids 1..128 with
-- SELECT gbench.mget($1), 5% update one of those rows.
--
-- Measures: what 5% writes cost the reads when PostgreSQL is the cache, read through
--   the mget function. Use -r to see the read and the update latencies apart.
-- Run:   gbench -n -M prepared -f workloads/update5-mget.sql -c 64 -T 10 -r DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   The update keeps each value's length; it changes the data, so load again before
--   comparing paths.
\if random(1, 100) <= 5
\set k random(1, 128)
\set n random(1, 999999999)
UPDATE gbench.items SET v = rpad(:n::text || '-', octet_length(v), v) WHERE id = :k;
\else
\set keys random_keys(1, 128, 16)
SELECT gbench.mget(:keys);
\endif
