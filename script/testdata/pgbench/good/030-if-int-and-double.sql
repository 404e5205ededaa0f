\if 1
SELECT 'int 1 is true';
\endif
\if 0.0
SELECT 'no';
\else
SELECT 'double 0.0 is false';
\endif
\if NULL
SELECT 'no';
\else
SELECT 'NULL is false';
\endif
