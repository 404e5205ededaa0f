\set x 5
SELECT ':x', 'a:x', ':xy', '::x';
