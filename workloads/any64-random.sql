-- any64-random.sql: read 64 random keys with SELECT id, v FROM gbench.items WHERE id = ANY($1).
-- Distinct keys drawn from 1..N (-D items=N), spread over the table.
--
-- Measures: the prepared-SQL path: one statement, 64 rows back in no particular order
--   (the client puts them in request order, as the contract check does).
-- Run:   gbench -n -M prepared -f workloads/any64-random.sql -D items=4096 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   Meant for -M prepared, the reference's mode; simple and extended mode work too.
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
\set keys random_keys(1, :items, 64)
SELECT id, v FROM gbench.items WHERE id = ANY(:keys);
