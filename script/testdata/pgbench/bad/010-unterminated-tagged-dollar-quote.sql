SELECT $tag$abc $$ ; $tga$;
