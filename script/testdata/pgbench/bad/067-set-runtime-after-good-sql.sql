SELECT 1;
\set x 1 / 0
SELECT 2;
