\set x NOT 1.5
