-- ycsb-d.sql: YCSB workload D (read latest) on PostgreSQL: 95% reads and 5% inserts.
-- Keys drawn by YCSB's latest (the newest records most) over the loaded records;
-- like YCSB's example, user status updates: people read the newest.
--
-- Measures: YCSB D against the PostgreSQL table gbench.usertable; -r shows each operation's
--   latency apart. The same letter on the other protocol: resp-ycsb-d.sql.
-- Run:   gbench -n -M prepared -f workloads/ycsb-d.sql -D recordcount=1000 -c 64 -T 10 -r DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
--   Written values are 100 bytes (five random 19-digit numbers, each followed by a dash);
--   an insert takes the next record number from the shared insert counter (the sequence gbench.ycsb_seq)
--   and gives all 10 fields the same value.
\set op random(1, 100)
\if :op <= 95
\set off random_ycsb_zipfian(0, :recordcount - 1)
SELECT * FROM gbench.usertable WHERE ycsb_key = 'user' || ((SELECT last_value FROM gbench.ycsb_seq) - :off);
\else
\set v1 random(1000000000000000000, 9223372036854775807)
\set v2 random(1000000000000000000, 9223372036854775807)
\set v3 random(1000000000000000000, 9223372036854775807)
\set v4 random(1000000000000000000, 9223372036854775807)
\set v5 random(1000000000000000000, 9223372036854775807)
INSERT INTO gbench.usertable SELECT 'user' || nextval('gbench.ycsb_seq'), v, v, v, v, v, v, v, v, v, v FROM (SELECT :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' AS v) AS s;
\endif
