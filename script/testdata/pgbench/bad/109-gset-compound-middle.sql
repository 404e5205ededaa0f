SELECT 1 AS a \gset \; SELECT 2 AS b;
