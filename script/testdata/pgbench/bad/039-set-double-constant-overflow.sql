\set x 1e999
