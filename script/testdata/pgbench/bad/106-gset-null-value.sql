SELECT NULL AS a \gset
\set b :a + 1
