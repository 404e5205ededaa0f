SELECT 'abc' AS a \gset
\set b :a + 1
