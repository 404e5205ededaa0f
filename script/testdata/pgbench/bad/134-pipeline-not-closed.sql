-- args: -M extended
\startpipeline
SELECT 1;
