package script

import "math/bits"

// hashFNV1a is pgbench's hash_fnv1a: FNV-1a over the 8 bytes of val, low
// byte first, with the offset basis xor-ed with seed.
func hashFNV1a(val int64, seed uint64) int64 {
	const prime, basis = 0x100000001b3, 0xcbf29ce484222325
	h := int64(basis ^ seed)
	for i := 0; i < 8; i++ {
		h ^= val & 0xff
		h *= prime
		val >>= 8
	}
	return h
}

// hashMurmur2 is pgbench's hash_murmur2: MurmurHash64A of one 64-bit word.
func hashMurmur2(val int64, seed uint64) int64 {
	const mul, mulTimes8, rot = 0xc6a4a7935bd1e995, 0x35253c9ade8f4ca8, 47
	h := seed ^ mulTimes8
	k := uint64(val)
	k *= mul
	k ^= k >> rot
	k *= mul
	h ^= k
	h *= mul
	h ^= h >> rot
	h *= mul
	h ^= h >> rot
	return int64(h)
}

// permute is pgbench's permute(i, size, seed): a pseudorandom permutation of
// [0, size) selected by seed, applied to i mod size. size must be positive.
func permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	var st PRNG
	st.Seed(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := 63 - bits.LeadingZeros64(size)
	mask := uint64(1)<<masklen - 1
	for i := 0; i < 6; i++ {
		m := st.Uint64()&mask | 1
		r := st.Uint64() & mask
		if v <= mask {
			v = (v*m ^ r) & mask
			v = (v<<1)&mask | v>>(masklen-1)
		}
		m = st.Uint64()&mask | 1
		r = st.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = (t*m ^ r) & mask
			t = (t<<1)&mask | t>>(masklen-1)
			v = size - 1 - t
		}
		r = st.Uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
