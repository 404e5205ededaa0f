\resp GET gbench:item:1
