-- args: -M extended
\startpipeline
\sleep 1 ms
\endpipeline
