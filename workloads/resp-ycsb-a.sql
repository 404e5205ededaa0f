-- resp-ycsb-a.sql: YCSB workload A (update heavy) on Redis: 50% reads and 50% updates.
-- Keys drawn by YCSB's zipfian (scrambled, constant 0.99) over the loaded records;
-- like YCSB's example, a session store recording recent actions.
--
-- Measures: YCSB A against the Redis hashes gbench:ycsb:user<n>; -r shows each operation's
--   latency apart. The same letter on the other protocol: ycsb-a.sql.
-- Run:   gbench -f workloads/resp-ycsb-a.sql -D recordcount=1000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -r
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
--   Written values are 100 bytes (five random 19-digit numbers, each followed by a dash);
\set op random(1, 100)
\if :op <= 50
\set k random_ycsb_scrambled(1, :recordcount)
\resp HGETALL gbench:ycsb:user:k
\else
\set k random_ycsb_scrambled(1, :recordcount)
\set f random(0, 9)
\set v1 random(1000000000000000000, 9223372036854775807)
\set v2 random(1000000000000000000, 9223372036854775807)
\set v3 random(1000000000000000000, 9223372036854775807)
\set v4 random(1000000000000000000, 9223372036854775807)
\set v5 random(1000000000000000000, 9223372036854775807)
\resp HSET gbench:ycsb:user:k field:f :v1-:v2-:v3-:v4-:v5-
\endif
