\set x 5
\set x1 6
SELECT :x1, ':x11', :x;
