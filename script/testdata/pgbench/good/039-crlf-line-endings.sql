\set x 1
SELECT :x;
SELECT
 2;
