-- session-get-sql.sql: the article's get: a session by UUID from an UNLOGGED PostgreSQL table.
-- "Postgres UNLOGGED instead of Redis": keys are uuid(n) (a version 8 UUID from n), the
-- table gbench.sessions(key varchar(255) PRIMARY KEY, value text) holds uuid(1..S), and n is
-- drawn from 1..1.25*S, so 80% of the requested keys exist.
--
-- Measures: a cache get on PostgreSQL by a text key: one indexed single-row SELECT.
--   Compare with session-get-resp.sql and session-get-sql-logged.sql.
-- Run:   gbench -n -M prepared -f workloads/session-get-sql.sql -D sessions=100000 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D sessions=S: the number of sessions loaded (--sessions of the load, 100000 by default).
\set n random(1, :sessions * 5 / 4)
\set key uuid(:n)
SELECT value FROM gbench.sessions WHERE key = :key;
