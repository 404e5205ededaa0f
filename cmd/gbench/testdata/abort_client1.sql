-- client 1 aborts at once; the others run their transactions
\if :client_id = 1
SELECT 1 / 0;
\endif
SELECT 1;
