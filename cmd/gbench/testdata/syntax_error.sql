-- an expression that ends too early
\set x 1 +
select :x;
