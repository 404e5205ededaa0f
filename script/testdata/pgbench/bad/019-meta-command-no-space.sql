\setx 1
