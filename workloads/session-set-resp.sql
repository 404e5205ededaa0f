-- session-set-resp.sql: the article's set: SET a session into Redis.
-- 10% of sets overwrite one of the S loaded sessions, 90% add a new key (uuid of an n
-- above 1000000000000, which no get asks for); the value is a serialized session object
-- of about 190 bytes built with gbench's string functions.
--
-- Measures: a cache set on Redis: one SET. Compare with session-set-sql.sql.
-- Run:   gbench -f workloads/session-set-resp.sql -D sessions=100000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D sessions=S: the number of sessions loaded (--sessions of the load, 100000 by default).
--   Redis grows until the next load.
\if random(1, 100) <= 10
\set n random(1, :sessions)
\else
\set n random(1000000000001, 9000000000000000000)
\endif
\set key uuid(:n)
\set value '{"sid":"' || :key || '","user_id":' || :n || ',"created":' || 1700000000 + :n || ',"ttl":3600,"roles":["user"],"csrf":"' || random_string(32) || '","agent":"Mozilla/5.0 (gbench)"}'
\resp SET gbench:session::key :value
