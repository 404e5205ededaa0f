\sleep 1 + 1
