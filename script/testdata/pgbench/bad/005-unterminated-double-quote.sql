SELECT "abc;
