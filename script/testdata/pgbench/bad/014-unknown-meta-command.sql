\foo bar
