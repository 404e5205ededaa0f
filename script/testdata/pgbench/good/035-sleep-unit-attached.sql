\sleep 10ms
\sleep 5us
SELECT 1;
