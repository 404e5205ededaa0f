\if false
\elif )
\endif
