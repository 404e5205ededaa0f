-- args: -D s=abc
\set x :s + 1
