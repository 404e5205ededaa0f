-- args: -M extended
\endpipeline
