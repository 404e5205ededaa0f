\aset
