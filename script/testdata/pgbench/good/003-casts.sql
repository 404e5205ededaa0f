\set x 5
SELECT 1::int, '2'::text, :x::int, :x::text::int;
