SELECT 1; \set x 2
SELECT :x;
