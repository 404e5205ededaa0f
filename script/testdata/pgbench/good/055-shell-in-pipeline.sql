-- args: -M extended
\startpipeline
\shell true
\endpipeline
