-- a custom script: variables, an expression, two statements
\set aid random(1, 100000 * :scale)
\set delta random(-5, 5)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT :delta + 1 AS next;
