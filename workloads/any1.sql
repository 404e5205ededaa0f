-- any1.sql: read key 1 with SELECT id, v FROM gbench.items WHERE id = ANY($1).
-- The fixed key of the reference matrix (any1-random.sql draws it at random).
--
-- Measures: the prepared-SQL path: one statement, 1 row back in no particular order
--   (the client puts them in request order, as the contract check does).
-- Run:   gbench -n -M prepared -f workloads/any1.sql -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   Meant for -M prepared, the reference's mode; simple and extended mode work too.
\set keys range(1, 1)
SELECT id, v FROM gbench.items WHERE id = ANY(:keys);
