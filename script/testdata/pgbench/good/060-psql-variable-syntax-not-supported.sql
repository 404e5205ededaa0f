\set x 5
SELECT ':''x''', ':"x"', ':{x}';
