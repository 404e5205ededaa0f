-- ycsb-c.sql: YCSB workload C (read only) on PostgreSQL: 100% reads.
-- Keys drawn by YCSB's zipfian (scrambled, constant 0.99) over the loaded records;
-- like YCSB's example, a user profile cache.
--
-- Measures: YCSB C against the PostgreSQL table gbench.usertable; -r shows each operation's
--   latency apart. The same letter on the other protocol: resp-ycsb-c.sql.
-- Run:   gbench -n -M prepared -f workloads/ycsb-c.sql -D recordcount=1000 -c 64 -T 10 -r DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
\set k random_ycsb_scrambled(1, :recordcount)
SELECT * FROM gbench.usertable WHERE ycsb_key = 'user' || :k;
