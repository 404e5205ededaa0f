-- an error that is not retried: the client aborts in its first transaction
SELECT 1;
SELECT 1 / 0;
