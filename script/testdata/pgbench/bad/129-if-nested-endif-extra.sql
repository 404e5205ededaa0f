\if true
\endif
\endif
