-- tpcc-delivery.sql: the TPC-C-like delivery transaction (4% of the mix), in a function.
-- Delivers the oldest new order of each of a warehouse's ten districts.
--
-- Measures: the batch transaction; its loop over the districts runs in gbench.tpcc_delivery.
-- Run:   gbench -n -M prepared -D warehouses=1 -c 8 -T 60 -r -f workloads/tpcc-new-order.sql@45 -f workloads/tpcc-payment.sql@43 -f workloads/tpcc-order-status.sql@4 -f workloads/tpcc-delivery.sql@4 -f workloads/tpcc-stock-level.sql@4 DBNAME
--   (one line: the five transactions with TPC-C's mix, 45/43/4/4/4).
-- Needs: the TPC-C-like data: gbench workloads load --tpcc-warehouses N DBNAME
--   (or gbench sandbox --tpcc-warehouses N); -D warehouses=N: the warehouses loaded.
--   TPC-C-like, not TPC-C: no keying or think times, not an audited result
--   (docs/workloads.md lists the departures).
\set w random(1, :warehouses)
\set carrier random(1, 10)
SELECT gbench.tpcc_delivery(:w, :carrier) AS delivered;
