\set x * 2
