SELECT 'a\b', E'a\\b', $$\set x 1$$;
