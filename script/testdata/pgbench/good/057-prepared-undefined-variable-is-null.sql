-- args: -M prepared
SELECT :nosuch::text IS NULL;
