package resp

// SlotCount is the number of hash slots of a Redis Cluster.
const SlotCount = 16384

// crc16Table is CRC16-CCITT (XModem: polynomial 0x1021, initial value 0),
// the checksum the Redis Cluster specification uses for key slots.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// CRC16 is the CRC16 of b as Redis Cluster computes it (XModem):
// CRC16([]byte("123456789")) is 0x31C3.
func CRC16(b []byte) uint16 {
	var c uint16
	for _, x := range b {
		c = c<<8 ^ crc16Table[byte(c>>8)^x]
	}
	return c
}

// HashTag returns the part of key that decides its slot: the bytes
// between the first '{' and the first '}' after it when there are some,
// else the whole key ("{user1000}.following" hashes "user1000"; "{}x" and
// "x{" hash whole).
func HashTag(key []byte) []byte {
	for i, c := range key {
		if c != '{' {
			continue
		}
		for j := i + 1; j < len(key); j++ {
			if key[j] == '}' {
				if j == i+1 {
					return key
				}
				return key[i+1 : j]
			}
		}
		return key
	}
	return key
}

// Slot is the hash slot of key, from 0 to SlotCount-1, {hash tags}
// included. It allocates nothing and is safe for concurrent use.
func Slot(key []byte) uint16 {
	return CRC16(HashTag(key)) & (SlotCount - 1)
}
