\set été 7
SELECT :été;
