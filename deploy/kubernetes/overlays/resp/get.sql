-- One GET of a random key of gbench:kv:1..100000 (gbench workloads load).
\set k random(1, 100000)
\resp GET gbench:kv::k
