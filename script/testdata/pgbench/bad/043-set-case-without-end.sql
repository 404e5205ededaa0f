\set x CASE WHEN true THEN 1
