-- any64-random.sql: read 64 distinct random keys from 1..N (-D items=N),
-- with one SELECT id, v FROM gbench.items WHERE id = ANY($1).
--
-- Measures: the prepared-SQL path: one statement, 64 rows back in no particular order
--   (the client puts them in request order, as the contract check does).
-- Run:   gbench -n -M prepared -f workloads/any64-random.sql -D items=4096 -c 64 -T 10 DBNAME
-- Needs: the dataset (dataset.sql; gbench sandbox loads it). Meant for -M prepared,
--   the reference's mode; simple and extended mode work too.
--   -D items=N: the number of rows loaded, 4096 by default (gbench sandbox sets it).
\set keys random_keys(1, :items, 64)
SELECT id, v FROM gbench.items WHERE id = ANY(:keys);
