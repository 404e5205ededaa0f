package resp

import "strconv"

// AppendArrayHeader appends the header of an array of n elements, "*n\r\n",
// to b and returns the extended slice. The caller then appends exactly n
// values, usually bulk strings.
func AppendArrayHeader(b []byte, n int) []byte {
	return appendPrefix(b, '*', n)
}

// AppendBulk appends p as a bulk string, "$len\r\np\r\n", to b and returns
// the extended slice. A nil p is sent as an empty string, not a null.
func AppendBulk(b, p []byte) []byte {
	b = appendPrefix(b, '$', len(p))
	b = append(b, p...)
	return append(b, '\r', '\n')
}

// AppendBulkString appends s as a bulk string to b, without converting it
// to a []byte, and returns the extended slice.
func AppendBulkString(b []byte, s string) []byte {
	b = appendPrefix(b, '$', len(s))
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// AppendBulkInt appends the decimal text of v as a bulk string to b, as
// Redis expects integer arguments, and returns the extended slice.
func AppendBulkInt(b []byte, v int64) []byte {
	var tmp [20]byte
	return AppendBulk(b, strconv.AppendInt(tmp[:0], v, 10))
}

// AppendCommand appends a whole command, an array of bulk strings, to b and
// returns the extended slice.
func AppendCommand(b []byte, args ...string) []byte {
	b = AppendArrayHeader(b, len(args))
	for _, a := range args {
		b = AppendBulkString(b, a)
	}
	return b
}

// prefixLen is the length of appendPrefix's text for n >= 0.
func prefixLen(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d + 3
}

// appendPrefix appends typ, the decimal n and CRLF. Lengths below 1000,
// nearly all of them, skip strconv.
func appendPrefix(b []byte, typ byte, n int) []byte {
	switch {
	case n >= 0 && n < 10:
		return append(b, typ, byte('0'+n), '\r', '\n')
	case n >= 10 && n < 100:
		return append(b, typ, byte('0'+n/10), byte('0'+n%10), '\r', '\n')
	case n >= 100 && n < 1000:
		return append(b, typ, byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10), '\r', '\n')
	}
	b = append(b, typ)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}
