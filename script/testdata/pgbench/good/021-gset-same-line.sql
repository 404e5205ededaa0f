SELECT 1 AS one \gset
SELECT :one;
