\set x 1
\set :x 2
