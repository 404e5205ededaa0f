\set x 5
SELECT 1 -- :x
/* :x */ + 1;
