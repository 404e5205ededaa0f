\setshell x true
