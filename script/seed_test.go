package script

import "testing"

// TestPgbenchSeeding checks the order in which pgbench 15 derives random
// states from --random-seed: clients first, then :default_seed.
func TestPgbenchSeeding(t *testing.T) {
	var base PRNG
	base.Seed(1)
	var client PRNG
	client.Seed(base.Uint64())
	def := int64(base.Uint64())
	if got := hashMurmur2(7, uint64(def)); got != -4807518294800300918 {
		t.Errorf("hash(7) with --random-seed=1 = %d, want pgbench's -4807518294800300918", got)
	}
	if got := permute(7, 1000, def); got != 897 {
		t.Errorf("permute(7, 1000) with --random-seed=1 = %d, want pgbench's 897", got)
	}
}
