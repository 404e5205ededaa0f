-- args: -M extended
\startpipeline
\startpipeline
\endpipeline
