-- args: -M extended
\startpipeline
SELECT 1 AS a \aset
\endpipeline
