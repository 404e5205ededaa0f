-- a single cheap statement
select 1;
