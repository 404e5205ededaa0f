SELECT 1 AS "a b" \aset
