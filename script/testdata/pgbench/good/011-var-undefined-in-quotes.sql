SELECT ':nosuch', '::nosuch';
