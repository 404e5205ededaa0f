SELECT 1 AS a \aset p_ extra
