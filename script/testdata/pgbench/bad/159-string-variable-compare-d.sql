-- args: -D s=abc
\if :s
\endif
