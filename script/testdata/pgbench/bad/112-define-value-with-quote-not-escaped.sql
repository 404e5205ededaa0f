-- args: -D q=it's
SELECT ':q';
