\set a debug(1)
\set b debug(2.5)
\set c debug(true)
\set d debug(NULL)
\set e debug(0.0 * -1)
\set f debug(1e16)
SELECT 1;
