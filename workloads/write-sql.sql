-- write-sql.sql: one single-row UPDATE of a random item, the write of both SQL paths.
-- (sql-any and sql-mget read the table they write.)
--
-- Measures: what a write costs when PostgreSQL is the cache: one statement, a new row
--   version and its WAL (gbench.items is a logged table). Compare with write-resp.sql.
-- Run:   gbench -n -M prepared -f workloads/write-sql.sql -D items=4096 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D items=N: the number of items loaded (--items of the load, 4096 by default).
--   It changes values in PostgreSQL only, so Redis no longer matches: load again
--   before reading.
\set k random(1, :items)
\set n random(1, 999999999)
UPDATE gbench.items SET v = rpad(:n::text || '-', octet_length(v), v) WHERE id = :k;
