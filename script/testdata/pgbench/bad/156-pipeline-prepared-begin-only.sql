-- args: -M prepared
\startpipeline
BEGIN;
\endpipeline
