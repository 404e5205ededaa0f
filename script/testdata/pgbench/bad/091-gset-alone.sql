\gset
