SELECT 'abc
\set x 1
