\set a-b 1
