\set x 1
\set y :x + 1
