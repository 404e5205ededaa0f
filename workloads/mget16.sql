-- mget16.sql: read the fixed keys 1..16 as in the reference matrix,
-- with SELECT gbench.mget($1).
--
-- Measures: the SQL-mget path: one statement, one row holding one JSON array of the
--   values in request order (mget is defined in dataset.sql).
-- Run:   gbench -n -M prepared -f workloads/mget16.sql -c 64 -T 10 DBNAME
-- Needs: the dataset (dataset.sql; gbench sandbox loads it). Meant for -M prepared,
--   the reference's mode; simple and extended mode work too.
\set keys range(1, 16)
SELECT gbench.mget(:keys);
