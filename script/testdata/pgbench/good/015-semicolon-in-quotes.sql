SELECT ';', "?column?" FROM (SELECT 1) s("?column?") WHERE ';' <> 'a;b';
