SELECT 1 AS a, 2 AS b \gset p_
SELECT :p_a, :p_b;
