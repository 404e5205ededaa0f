

-- header
-- more

\set x 3

-- before sql
SELECT :x;
