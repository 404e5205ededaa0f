\setshell x echo 42
\setshell y echo :x
\shell true
\shell echo :x > /dev/null
SELECT :x, :y;
