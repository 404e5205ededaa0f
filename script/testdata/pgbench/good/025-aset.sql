SELECT 1 AS a \; SELECT 2 AS b WHERE false \; SELECT 3 AS c \aset
SELECT :a, :c, ':b';
