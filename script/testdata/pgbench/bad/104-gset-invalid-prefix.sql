SELECT 1 AS a \gset 1p_
