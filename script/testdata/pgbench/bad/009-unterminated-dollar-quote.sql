SELECT $$abc;
