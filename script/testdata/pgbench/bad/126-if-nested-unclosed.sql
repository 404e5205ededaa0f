\if true
\if false
\endif
