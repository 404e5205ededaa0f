\set d 2
\sleep 1ms
\sleep 1 ms
\sleep 100 us
\sleep :d us
\sleep 0
\sleep 0 s
SELECT 'slept';
