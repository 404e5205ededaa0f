-- args: -M extended
\startpipeline
SELECT 1;
SELECT 1/0;
SELECT 3;
\endpipeline
