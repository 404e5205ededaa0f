-- tpcc-new-order.sql: the TPC-C-like new-order transaction (45% of the mix), in a function.
-- A customer orders 5..15 items (NURand over 100000); 1% name an unused item and roll back.
--
-- Measures: NOPM, the new orders per minute that gbench prints after the summary when
--   this script runs beside the others. The order-line loop runs in gbench.tpcc_new_order.
-- Run:   gbench -n -M prepared -D warehouses=1 -c 8 -T 60 -r -f workloads/tpcc-new-order.sql@45 -f workloads/tpcc-payment.sql@43 -f workloads/tpcc-order-status.sql@4 -f workloads/tpcc-delivery.sql@4 -f workloads/tpcc-stock-level.sql@4 DBNAME
--   (one line: the five transactions with TPC-C's mix, 45/43/4/4/4).
-- Needs: the TPC-C-like data: gbench workloads load --tpcc-warehouses N DBNAME
--   (or gbench sandbox --tpcc-warehouses N); -D warehouses=N: the warehouses loaded.
--   TPC-C-like, not TPC-C: no keying or think times, not an audited result
--   (docs/workloads.md lists the departures).
\set w random(1, :warehouses)
\set d random(1, 10)
\set c_id (((random(0, 1023) | random(1, 3000)) + 259) % 3000) + 1
\set ol_cnt random(5, 15)
\set rbk random(1, 100)
\set i1 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i2 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i3 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i4 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i5 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i6 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i7 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i8 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i9 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i10 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i11 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i12 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i13 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i14 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
\set i15 (((random(0, 8191) | random(1, 100000)) + 7911) % 100000) + 1
SELECT gbench.tpcc_new_order(:w, :d, :c_id, :ol_cnt, :rbk = 1, ARRAY[:i1, :i2, :i3, :i4, :i5, :i6, :i7, :i8, :i9, :i10, :i11, :i12, :i13, :i14, :i15]::int[]) AS o_id;
