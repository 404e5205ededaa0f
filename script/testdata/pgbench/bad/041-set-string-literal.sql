\set x 'abc'
