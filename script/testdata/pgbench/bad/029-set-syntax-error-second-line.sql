SELECT 1;
\set y (1 + 2
