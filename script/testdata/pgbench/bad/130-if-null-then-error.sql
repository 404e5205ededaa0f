\if NULL
\else
\set x 1/0
\endif
