-- The smallest SQL transaction: one round trip. Replace it with your own
-- script (or use -b select-only after gbench -i).
SELECT 1;
