\sleep 1.5 ms
