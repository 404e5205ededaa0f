SELECT :nosuch;
