\setshell x false
