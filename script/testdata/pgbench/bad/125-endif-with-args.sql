\if true
\endif true
