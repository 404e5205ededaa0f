SELECT * FROM gbench_no_such_table;
