-- args: -M extended
\startpipeline now
\endpipeline
