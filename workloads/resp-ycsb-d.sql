-- resp-ycsb-d.sql: YCSB workload D (read latest) on Redis: 95% reads and 5% inserts.
-- Keys drawn by YCSB's latest (the newest records most) over the loaded records;
-- like YCSB's example, user status updates: people read the newest.
--
-- Measures: YCSB D against the Redis hashes gbench:ycsb:user<n>; -r shows each operation's
--   latency apart. The same letter on the other protocol: ycsb-d.sql.
-- Run:   gbench -f workloads/resp-ycsb-d.sql -D recordcount=1000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -r
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
--   Written values are 100 bytes (five random 19-digit numbers, each followed by a dash);
--   an insert takes the next record number from the shared insert counter (INCR gbench:ycsb:count)
--   and gives all 10 fields the same value.
--   Inserts, latest reads and scans are one Lua script (EVAL) each: one round trip,
--   as the SQL statement is (docs/workloads.md).
\set op random(1, 100)
\if :op <= 95
\set off random_ycsb_zipfian(0, :recordcount - 1)
\resp EVAL "return redis.call('HGETALL', ARGV[1] .. (tonumber(redis.call('GET', KEYS[1])) - tonumber(ARGV[2])))" 1 gbench:ycsb:count gbench:ycsb:user :off
\else
\set v1 random(1000000000000000000, 9223372036854775807)
\set v2 random(1000000000000000000, 9223372036854775807)
\set v3 random(1000000000000000000, 9223372036854775807)
\set v4 random(1000000000000000000, 9223372036854775807)
\set v5 random(1000000000000000000, 9223372036854775807)
\resp EVAL "local n = redis.call('INCR', KEYS[1]) redis.call('HSET', ARGV[1] .. n, 'field0', ARGV[2], 'field1', ARGV[2], 'field2', ARGV[2], 'field3', ARGV[2], 'field4', ARGV[2], 'field5', ARGV[2], 'field6', ARGV[2], 'field7', ARGV[2], 'field8', ARGV[2], 'field9', ARGV[2]) redis.call('ZADD', KEYS[2], 0, 'user' .. n) return n" 2 gbench:ycsb:count gbench:ycsb:index gbench:ycsb:user :v1-:v2-:v3-:v4-:v5-
\endif
