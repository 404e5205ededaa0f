\sleep :
