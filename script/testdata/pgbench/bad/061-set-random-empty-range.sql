\set x random(10, 1)
