\set x 5
SELECT :x+1, (:x), :x-:x, (ARRAY[:x])[1];
