\shell gbench-no-such-command-xyz
