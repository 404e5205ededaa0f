\echo hello
