\set a 1.5
SELECT 'text' AS a \gset
SELECT ':a';
