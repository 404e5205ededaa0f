\set x 2
\if :x = 1
SELECT 'one';
\elif :x = 2
\if true
SELECT 'two-nested';
\else
SELECT 'no';
\endif
\else
SELECT 'other';
\endif
