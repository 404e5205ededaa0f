\SET x 1
\Set y :x + 1
SELECT :x, :y;
