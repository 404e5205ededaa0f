-- mget64.sql: read keys 1..64 with SELECT gbench.mget($1).
-- The fixed keys of the reference matrix (mget64-random.sql draws them at random).
--
-- Measures: the SQL-mget path: one statement, one row holding one JSON array of the
--   values in request order (gbench.mget is defined in dataset.sql).
-- Run:   gbench -n -M prepared -f workloads/mget64.sql -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   Meant for -M prepared, the reference's mode; simple and extended mode work too.
\set keys range(1, 64)
SELECT gbench.mget(:keys);
