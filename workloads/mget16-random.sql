-- mget16-random.sql: read 16 distinct random keys from 1..N (-D items=N),
-- with SELECT gbench.mget($1).
--
-- Measures: the SQL-mget path: one statement, one row holding one JSON array of the
--   values in request order (mget is defined in dataset.sql).
-- Run:   gbench -n -M prepared -f workloads/mget16-random.sql -D items=4096 -c 64 -T 10 DBNAME
-- Needs: the dataset (dataset.sql; gbench sandbox loads it). Meant for -M prepared,
--   the reference's mode; simple and extended mode work too.
--   -D items=N: the number of rows loaded, 4096 by default (gbench sandbox sets it).
\set keys random_keys(1, :items, 16)
SELECT gbench.mget(:keys);
