-- mget16-random.sql: read 16 random keys with SELECT gbench.mget($1).
-- Distinct keys drawn from 1..N (-D items=N), spread over the table.
--
-- Measures: the SQL-mget path: one statement, one row holding one JSON array of the
--   values in request order (gbench.mget is defined in dataset.sql).
-- Run:   gbench -n -M prepared -f workloads/mget16-random.sql -D items=4096 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   Meant for -M prepared, the reference's mode; simple and extended mode work too.
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
\set keys random_keys(1, :items, 16)
SELECT gbench.mget(:keys);
