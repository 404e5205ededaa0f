-- args: -c 2
\set x 10 / (1 - :client_id)
SELECT :x;
