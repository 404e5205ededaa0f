\set d 1
\sleep :d minutes
