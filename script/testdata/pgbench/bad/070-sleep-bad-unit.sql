\sleep 1 hours
