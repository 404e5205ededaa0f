\setshell x printf ' 7 \n'
SELECT ':x';
