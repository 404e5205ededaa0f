package fleet

import (
	"crypto/sha256"
	"encoding/binary"
)

// Seed is the random seed of a run whose options give none: a hash of its
// run id, so that every worker of the run takes the same one without
// asking anyone, before it connects (the clients' sequences are seeded
// first), and whether it meets the others or is given a start. A run id
// used again gives the same seed, and replays the run's random sequences
// as --random-seed does; a new run id draws new ones.
func Seed(runID string) uint64 {
	// Not Key's bytes: those name the run on the server for all to see.
	h := sha256.Sum256([]byte("gbench random seed\x00" + runID))
	return binary.BigEndian.Uint64(h[:8])
}
