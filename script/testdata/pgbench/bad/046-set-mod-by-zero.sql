\set x mod(5, 0)
