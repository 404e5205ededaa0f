-- tpcc-stock-level.sql: the TPC-C-like stock-level transaction (4% of the mix), read-only.
-- Counts the items of a district's last 20 orders whose stock is below a threshold.
--
-- Measures: a read-only join over order lines and stock.
-- Run:   gbench -n -M prepared -D warehouses=1 -c 8 -T 60 -r -f workloads/tpcc-new-order.sql@45 -f workloads/tpcc-payment.sql@43 -f workloads/tpcc-order-status.sql@4 -f workloads/tpcc-delivery.sql@4 -f workloads/tpcc-stock-level.sql@4 DBNAME
--   (one line: the five transactions with TPC-C's mix, 45/43/4/4/4).
-- Needs: the TPC-C-like data: gbench workloads load --tpcc-warehouses N DBNAME
--   (or gbench sandbox --tpcc-warehouses N); -D warehouses=N: the warehouses loaded.
--   TPC-C-like, not TPC-C: no keying or think times, not an audited result
--   (docs/workloads.md lists the departures).
\set w random(1, :warehouses)
\set d random(1, 10)
\set threshold random(10, 20)
BEGIN;
SELECT d_next_o_id FROM gbench.tpcc_district WHERE d_w_id = :w AND d_id = :d \gset
SELECT count(DISTINCT s_i_id) AS low_stock FROM gbench.tpcc_order_line JOIN gbench.tpcc_stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id WHERE ol_w_id = :w AND ol_d_id = :d AND ol_o_id >= :d_next_o_id - 20 AND ol_o_id < :d_next_o_id AND s_quantity < :threshold;
END;
