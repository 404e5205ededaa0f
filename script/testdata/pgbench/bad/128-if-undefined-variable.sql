\if :nosuch
\endif
SELECT 1;
