-- args: -M extended
SELECT 1 / (:nosuch::int IS NULL)::int;
