-- args: -c 2 --random-seed=5 -s 3
SELECT :client_id, :scale, :random_seed, :default_seed;
