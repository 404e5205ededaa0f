\if true
\else false
\endif
