-- tpcc-payment.sql: the TPC-C-like payment transaction (43% of the mix), as script lines.
-- Pays into a warehouse, a district and a customer (60% chosen by last name), logs it.
--
-- Measures: the write-heavy short transaction; every payment of a warehouse updates its row.
--   h_data is built on the server from the names (a \gset text value cannot be quoted
--   for -M simple and be a parameter for -M prepared at once).
-- Run:   gbench -n -M prepared -D warehouses=1 -c 8 -T 60 -r -f workloads/tpcc-new-order.sql@45 -f workloads/tpcc-payment.sql@43 -f workloads/tpcc-order-status.sql@4 -f workloads/tpcc-delivery.sql@4 -f workloads/tpcc-stock-level.sql@4 DBNAME
--   (one line: the five transactions with TPC-C's mix, 45/43/4/4/4).
-- Needs: the TPC-C-like data: gbench workloads load --tpcc-warehouses N DBNAME
--   (or gbench sandbox --tpcc-warehouses N); -D warehouses=N: the warehouses loaded.
--   TPC-C-like, not TPC-C: no keying or think times, not an audited result
--   (docs/workloads.md lists the departures).
\set w random(1, :warehouses)
\set d random(1, 10)
\set amount random(100, 500000)
\set byname random(1, 100)
\set c_id (((random(0, 1023) | random(1, 3000)) + 259) % 3000) + 1
\set nameno ((random(0, 255) | random(0, 999)) + 223) % 1000
BEGIN;
UPDATE gbench.tpcc_warehouse SET w_ytd = w_ytd + :amount * 0.01 WHERE w_id = :w RETURNING w_name \gset
UPDATE gbench.tpcc_district SET d_ytd = d_ytd + :amount * 0.01 WHERE d_w_id = :w AND d_id = :d RETURNING d_name \gset
\if :byname <= 60
SELECT c_id FROM (SELECT c_id, row_number() OVER (ORDER BY c_first) AS r, count(*) OVER () AS n FROM gbench.tpcc_customer WHERE c_w_id = :w AND c_d_id = :d AND c_last = gbench.tpcc_last_name(:nameno)) AS s WHERE r = (n + 1) / 2 \gset
\endif
UPDATE gbench.tpcc_customer SET c_balance = c_balance - :amount * 0.01, c_ytd_payment = c_ytd_payment + :amount * 0.01, c_payment_cnt = c_payment_cnt + 1, c_data = CASE WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || :amount || ' | ' || c_data, 500) ELSE c_data END WHERE c_w_id = :w AND c_d_id = :d AND c_id = :c_id;
INSERT INTO gbench.tpcc_history SELECT :c_id, :d, :w, :d, :w, now(), :amount * 0.01, w_name || '    ' || d_name FROM gbench.tpcc_warehouse, gbench.tpcc_district WHERE w_id = :w AND d_w_id = :w AND d_id = :d;
END;
