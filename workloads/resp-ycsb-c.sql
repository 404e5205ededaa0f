-- resp-ycsb-c.sql: YCSB workload C (read only) on Redis: 100% reads.
-- Keys drawn by YCSB's zipfian (scrambled, constant 0.99) over the loaded records;
-- like YCSB's example, a user profile cache.
--
-- Measures: YCSB C against the Redis hashes gbench:ycsb:user<n>; -r shows each operation's
--   latency apart. The same letter on the other protocol: ycsb-c.sql.
-- Run:   gbench -f workloads/resp-ycsb-c.sql -D recordcount=1000 --resp redis://127.0.0.1:6379/0 -c 64 -T 10 -r
-- Needs: the dataset in Redis: gbench workloads load --resp redis://127.0.0.1:6379/0
--   (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
\set k random_ycsb_scrambled(1, :recordcount)
\resp HGETALL gbench:ycsb:user:k
