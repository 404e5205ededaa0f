\sleep :nosuch
