SET lock_timeout = 'abc';
