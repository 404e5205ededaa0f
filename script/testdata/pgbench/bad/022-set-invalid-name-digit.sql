\set 1x 1
