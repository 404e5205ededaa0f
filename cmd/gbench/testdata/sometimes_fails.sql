-- a serialization failure in one transaction of four, a deadlock failure
-- in another: retried under --max-tries, counted as failures after that
\set r random(0, 3)
BEGIN;
SELECT :r;
\if :r = 0
DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$;
\elif :r = 1
DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40P01'; END $$;
\endif
END;
