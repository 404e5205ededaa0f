\if false
\set x 1/0
SELECT 1/0;
\endif
SELECT 'after';
