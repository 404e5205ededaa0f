\setshell 1x echo 1
