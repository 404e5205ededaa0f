\set x 1 / 0
SELECT :x;
