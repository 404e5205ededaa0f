\set d 1.5
\sleep :d ms
SELECT 1;
