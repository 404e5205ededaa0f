-- ycsb-e.sql: YCSB workload E (short ranges) on PostgreSQL: 95% scans and 5% inserts.
-- Keys drawn by YCSB's zipfian (scrambled, constant 0.99) over the loaded records;
-- like YCSB's example, threaded conversations: scan a thread.
--
-- Measures: YCSB E against the PostgreSQL table gbench.usertable; -r shows each operation's
--   latency apart. The same letter on the other protocol: resp-ycsb-e.sql.
-- Run:   gbench -n -M prepared -f workloads/ycsb-e.sql -D recordcount=1000 -c 64 -T 10 -r DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
--   Written values are 100 bytes (five random 19-digit numbers, each followed by a dash);
--   an insert takes the next record number from the shared insert counter (the sequence gbench.ycsb_seq)
--   and gives all 10 fields the same value.
\set op random(1, 100)
\if :op <= 95
\set k random_ycsb_scrambled(1, :recordcount)
\set len random(1, 100)
SELECT * FROM gbench.usertable WHERE ycsb_key >= 'user' || :k ORDER BY ycsb_key LIMIT :len;
\else
\set v1 random(1000000000000000000, 9223372036854775807)
\set v2 random(1000000000000000000, 9223372036854775807)
\set v3 random(1000000000000000000, 9223372036854775807)
\set v4 random(1000000000000000000, 9223372036854775807)
\set v5 random(1000000000000000000, 9223372036854775807)
INSERT INTO gbench.usertable SELECT 'user' || nextval('gbench.ycsb_seq'), v, v, v, v, v, v, v, v, v, v FROM (SELECT :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' AS v) AS s;
\endif
