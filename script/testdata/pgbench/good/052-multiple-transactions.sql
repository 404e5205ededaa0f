-- args: -t 3
\set x random(1, 1000000)
SELECT :x;
