SELECT NULL AS a \gset
SELECT ':a';
