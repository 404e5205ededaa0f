\set x 1 AND 0
