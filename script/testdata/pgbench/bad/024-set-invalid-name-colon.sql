\set :x 1
