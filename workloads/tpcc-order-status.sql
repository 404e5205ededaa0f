-- tpcc-order-status.sql: the TPC-C-like order-status transaction (4% of the mix), read-only.
-- A customer (60% by last name), their last order and its lines.
--
-- Measures: a read-only transaction of three to four statements.
-- Run:   gbench -n -M prepared -D warehouses=1 -c 8 -T 60 -r -f workloads/tpcc-new-order.sql@45 -f workloads/tpcc-payment.sql@43 -f workloads/tpcc-order-status.sql@4 -f workloads/tpcc-delivery.sql@4 -f workloads/tpcc-stock-level.sql@4 DBNAME
--   (one line: the five transactions with TPC-C's mix, 45/43/4/4/4).
-- Needs: the TPC-C-like data: gbench workloads load --tpcc-warehouses N DBNAME
--   (or gbench sandbox --tpcc-warehouses N); -D warehouses=N: the warehouses loaded.
--   TPC-C-like, not TPC-C: no keying or think times, not an audited result
--   (docs/workloads.md lists the departures).
\set w random(1, :warehouses)
\set d random(1, 10)
\set byname random(1, 100)
\set c_id (((random(0, 1023) | random(1, 3000)) + 259) % 3000) + 1
\set nameno ((random(0, 255) | random(0, 999)) + 223) % 1000
BEGIN;
\if :byname <= 60
SELECT c_id, c_balance, c_first, c_middle FROM (SELECT c_id, c_balance, c_first, c_middle, row_number() OVER (ORDER BY c_first) AS r, count(*) OVER () AS n FROM gbench.tpcc_customer WHERE c_w_id = :w AND c_d_id = :d AND c_last = gbench.tpcc_last_name(:nameno)) AS s WHERE r = (n + 1) / 2 \gset
\else
SELECT c_balance, c_first, c_middle, c_last FROM gbench.tpcc_customer WHERE c_w_id = :w AND c_d_id = :d AND c_id = :c_id \gset
\endif
SELECT o_id, o_entry_d, o_carrier_id FROM gbench.tpcc_orders WHERE o_w_id = :w AND o_d_id = :d AND o_c_id = :c_id ORDER BY o_id DESC LIMIT 1 \gset
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM gbench.tpcc_order_line WHERE ol_w_id = :w AND ol_d_id = :d AND ol_o_id = :o_id;
END;
