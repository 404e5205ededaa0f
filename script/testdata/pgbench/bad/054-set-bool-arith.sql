\set x true + 1
