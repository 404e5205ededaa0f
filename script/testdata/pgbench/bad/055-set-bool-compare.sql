\set x true = true
