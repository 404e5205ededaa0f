-- args: -c 2 -t 2
\if :client_id = 0
SELECT 'client zero';
\else
SELECT 'client ' || :client_id;
\endif
