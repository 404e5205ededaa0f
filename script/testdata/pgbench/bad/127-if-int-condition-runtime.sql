\if 1 AND 1
\endif
SELECT 1;
