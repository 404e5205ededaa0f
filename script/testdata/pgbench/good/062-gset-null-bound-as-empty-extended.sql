-- args: -M extended
-- a NULL column stored by \gset is bound as an empty string, not as NULL
SELECT NULL::text AS n \gset
SELECT 1 / (CASE WHEN :n::text IS NULL THEN 0 ELSE 1 END);
