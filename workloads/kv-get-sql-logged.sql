-- kv-get-sql-logged.sql: GET from a logged PostgreSQL table used as a key-value cache.
-- One random key from 1..1.25*K, so 80% of gets hit (the table holds keys 1..K).
--
-- Measures: a cache get on PostgreSQL: one indexed single-row SELECT on gbench.kv_logged.
--   Compare with kv-get-resp.sql.
-- Run:   gbench -n -M prepared -f workloads/kv-get-sql-logged.sql -D keys=100000 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D keys=K: the number of kv keys loaded (--keys of the load, 100000 by default).
\set k random(1, :keys * 5 / 4)
SELECT v FROM gbench.kv_logged WHERE k = :k;
