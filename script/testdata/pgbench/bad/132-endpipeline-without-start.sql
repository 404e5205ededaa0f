\endpipeline
