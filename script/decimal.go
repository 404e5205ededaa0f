package script

import (
	"math"
	"strconv"
)

// digitPairs holds "00" to "99": AppendInt writes two digits per division.
const digitPairs = "" +
	"00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// decimalLen returns the number of decimal digits of u.
func decimalLen(u uint64) int {
	n := 1
	for u >= 10000 {
		u /= 10000
		n += 4
	}
	switch {
	case u >= 1000:
		return n + 3
	case u >= 100:
		return n + 2
	case u >= 10:
		return n + 1
	}
	return n
}

// DecimalLen returns the length of v's decimal text.
func DecimalLen(v int64) int {
	switch {
	case v >= 0:
		return decimalLen(uint64(v))
	case v == math.MinInt64:
		return 20
	}
	return 1 + decimalLen(uint64(-v))
}

// AppendInt appends the decimal text of v, as strconv.AppendInt(dst, v,
// 10) does, but writes the digits in place in dst rather than through a
// buffer of its own: keys are encoded many times per request (a 64-key
// MGET writes 64 of them).
func AppendInt(dst []byte, v int64) []byte {
	if v < 0 {
		if v == math.MinInt64 {
			return strconv.AppendInt(dst, v, 10)
		}
		dst = append(dst, '-')
		v = -v
	}
	u := uint64(v)
	if u < 10 {
		return append(dst, byte('0'+u))
	}
	n := decimalLen(u)
	l := len(dst)
	if cap(dst)-l < n {
		dst = append(dst, make([]byte, n)...)
	} else {
		dst = dst[:l+n]
	}
	b := dst[l : l+n]
	i := n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		b[0], b[1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		b[0] = byte('0' + u)
	}
	return dst
}
