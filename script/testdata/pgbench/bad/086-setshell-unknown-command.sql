\setshell x gbench-no-such-command-xyz
