-- args: -M extended
\startpipeline
SELECT 1 AS a \gset
\endpipeline
