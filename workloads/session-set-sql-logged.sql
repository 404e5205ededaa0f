-- session-set-sql-logged.sql: the article's set: upsert a session into a logged PostgreSQL table.
-- 10% of sets overwrite one of the S loaded sessions, 90% add a new key (uuid of an n
-- above 1000000000000, which no get asks for); the value is a serialized session object
-- of about 190 bytes built with gbench's string functions.
--
-- Measures: a cache set on PostgreSQL: INSERT ... ON CONFLICT (key) DO UPDATE on
--   gbench.sessions_logged (WAL for every row, which durability settings decide the cost of). Compare with session-set-resp.sql.
-- Run:   gbench -n -M prepared -f workloads/session-set-sql-logged.sql -D sessions=100000 -c 64 -T 10 DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D sessions=S: the number of sessions loaded (--sessions of the load, 100000 by default).
--   The table grows until the next load.
\if random(1, 100) <= 10
\set n random(1, :sessions)
\else
\set n random(1000000000001, 9000000000000000000)
\endif
\set key uuid(:n)
\set value '{"sid":"' || :key || '","user_id":' || :n || ',"created":' || 1700000000 + :n || ',"ttl":3600,"roles":["user"],"csrf":"' || random_string(32) || '","agent":"Mozilla/5.0 (gbench)"}'
INSERT INTO gbench.sessions_logged (key, value) VALUES (:key, :value) ON CONFLICT (key) DO UPDATE SET value = excluded.value;
