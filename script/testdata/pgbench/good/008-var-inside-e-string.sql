\set x 5
SELECT E'\':x\'';
