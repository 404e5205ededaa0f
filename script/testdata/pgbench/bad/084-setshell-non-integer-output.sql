\setshell x echo abc
