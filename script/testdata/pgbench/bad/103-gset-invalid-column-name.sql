SELECT 1 AS "a-b" \gset
