-- args: -D 1x=5
SELECT 1;
