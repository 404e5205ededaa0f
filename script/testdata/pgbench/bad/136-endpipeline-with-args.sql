-- args: -M extended
\startpipeline
\endpipeline now
