-- args: -D e=
SELECT 1;
