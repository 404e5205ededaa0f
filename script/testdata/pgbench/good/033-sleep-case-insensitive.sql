\sleep 1 MS
\SLEEP 1 Us
SELECT 1;
