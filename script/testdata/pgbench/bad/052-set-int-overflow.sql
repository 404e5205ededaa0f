\set x int(1e19)
