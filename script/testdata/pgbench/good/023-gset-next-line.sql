SELECT 1 AS a;
\gset
SELECT :a;
