-- ycsb-a.sql: YCSB workload A (update heavy) on PostgreSQL: 50% reads and 50% updates.
-- Keys drawn by YCSB's zipfian (scrambled, constant 0.99) over the loaded records;
-- like YCSB's example, a session store recording recent actions.
--
-- Measures: YCSB A against the PostgreSQL table gbench.usertable; -r shows each operation's
--   latency apart. The same letter on the other protocol: resp-ycsb-a.sql.
-- Run:   gbench -n -M prepared -f workloads/ycsb-a.sql -D recordcount=1000 -c 64 -T 10 -r DBNAME
-- Needs: the dataset: gbench workloads load DBNAME (or run it in gbench sandbox).
--   -D recordcount=R: the records loaded (--ycsb-records of the load, 1000 by default).
--   Written values are 100 bytes (five random 19-digit numbers, each followed by a dash);
\set op random(1, 100)
\if :op <= 50
\set k random_ycsb_scrambled(1, :recordcount)
SELECT * FROM gbench.usertable WHERE ycsb_key = 'user' || :k;
\else
\set k random_ycsb_scrambled(1, :recordcount)
\set f random(0, 9)
\set v1 random(1000000000000000000, 9223372036854775807)
\set v2 random(1000000000000000000, 9223372036854775807)
\set v3 random(1000000000000000000, 9223372036854775807)
\set v4 random(1000000000000000000, 9223372036854775807)
\set v5 random(1000000000000000000, 9223372036854775807)
\if :f = 0
UPDATE gbench.usertable SET field0 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 1
UPDATE gbench.usertable SET field1 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 2
UPDATE gbench.usertable SET field2 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 3
UPDATE gbench.usertable SET field3 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 4
UPDATE gbench.usertable SET field4 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 5
UPDATE gbench.usertable SET field5 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 6
UPDATE gbench.usertable SET field6 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 7
UPDATE gbench.usertable SET field7 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\elif :f = 8
UPDATE gbench.usertable SET field8 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\else
UPDATE gbench.usertable SET field9 = :v1 || '-' || :v2 || '-' || :v3 || '-' || :v4 || '-' || :v5 || '-' WHERE ycsb_key = 'user' || :k;
\endif
\endif
