-- args: -D s=abc -D n=12
SELECT ':s', :n;
