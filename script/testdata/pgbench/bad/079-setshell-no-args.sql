\setshell
