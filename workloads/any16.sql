-- any16.sql: read keys 1..16 with SELECT id, v FROM gbench.items WHERE id = ANY($1).
-- The fixed keys of the reference matrix (any16-random.sql draws them at random).
--
-- Measures: the prepared-SQL path: one statement, 16 rows back in no particular order
--   (the client puts them in request order, as the contract check does).
-- Run:   gbench -n -M prepared -f workloads/any16.sql -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   Meant for -M prepared, the reference's mode; simple and extended mode work too.
\set keys range(1, 16)
SELECT id, v FROM gbench.items WHERE id = ANY(:keys);
