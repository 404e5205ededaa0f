\shell echo :nosuch
