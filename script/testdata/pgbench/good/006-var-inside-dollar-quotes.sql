\set x 5
SELECT $$:x$$, $t$ :x $t$;
