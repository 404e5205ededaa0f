\set x 5
SELECT 1 AS ":x";
