-- every transaction ends in a serialization failure
DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$;
