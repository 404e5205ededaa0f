-- leading comment
SELECT 1; -- trailing comment
-- comment with ; semicolon
SELECT 2;
