\set '' 1
