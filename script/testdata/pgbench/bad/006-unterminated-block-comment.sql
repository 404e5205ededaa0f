SELECT 1; /* never closed
