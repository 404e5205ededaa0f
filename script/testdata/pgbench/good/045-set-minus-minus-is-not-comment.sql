\set x 1 -- 1
SELECT :x;
