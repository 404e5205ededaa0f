-- session-get-resp.sql: the article's get: a session by UUID from Redis.
-- Redis holds gbench:session:<uuid(n)> for n in 1..S, and n is drawn from 1..1.25*S, so
-- 80% of the requested keys exist (--resp-stats shows the hits and misses).
--
-- Measures: a cache get on Redis: one GET. Compare with session-get-sql.sql.
-- Run:   gbench -f workloads/session-get-resp.sql -D sessions=100000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D sessions=S: the number of sessions loaded (--sessions of the load, 100000 by default).
\set n random(1, :sessions * 5 / 4)
\set key uuid(:n)
\resp GET gbench:session::key
