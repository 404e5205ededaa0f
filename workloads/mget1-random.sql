-- mget1-random.sql: read 1 random key with SELECT gbench.mget($1).
-- A key drawn from 1..N (-D items=N).
--
-- Measures: the SQL-mget path: one statement, one row holding one JSON array of the
--   values in request order (gbench.mget is defined in dataset.sql).
-- Run:   gbench -n -M prepared -f workloads/mget1-random.sql -D items=4096 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   Meant for -M prepared, the reference's mode; simple and extended mode work too.
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
\set keys random_keys(1, :items, 1)
SELECT gbench.mget(:keys);
