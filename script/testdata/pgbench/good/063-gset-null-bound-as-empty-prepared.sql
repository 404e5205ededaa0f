-- args: -M prepared
SELECT 7 AS a, NULL::text AS n \gset
SELECT 1 / (CASE WHEN :n::text IS NULL THEN 0 ELSE 1 END), :a;
