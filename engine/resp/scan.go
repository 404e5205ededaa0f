package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// Limits a Reader enforces on untrusted input. A reply breaking one is a
// ProtocolError; nothing is ever allocated from a length prefix.
const (
	MaxBulkLen      = 512 << 20 // longest bulk string, blob error or verbatim string (Redis proto-max-bulk-len)
	MaxAggregateLen = 1 << 24   // most elements in an array, set or push, or pairs in a map or attribute
	MaxDepth        = 128       // most aggregates open at once
	MaxLineLen      = 64 << 10  // longest simple string, error, double or big number before its CRLF
)

// ProtocolError reports input that is not valid RESP or breaks a limit.
// The connection it came from cannot be trusted any more.
type ProtocolError struct {
	Offset int    // offset in the parsed buffer of the offending byte
	Reason string // what is wrong, in lower case
}

// Error returns "resp: <reason> at offset <n>".
func (e *ProtocolError) Error() string {
	return fmt.Sprintf("resp: %s at offset %d", e.Reason, e.Offset)
}

// errIncomplete is returned by the scanners when buf ends before the value
// does. It never leaves the package.
var errIncomplete = errors.New("resp: incomplete reply")

func protoErr(off int, format string, args ...any) error {
	return &ProtocolError{Offset: off, Reason: fmt.Sprintf(format, args...)}
}

// scanLine returns the text from buf[pos] up to the next CRLF and the offset
// just past that CRLF.
func scanLine(buf []byte, pos int) ([]byte, int, error) {
	end := min(len(buf), pos+MaxLineLen+1)
	i := bytes.IndexByte(buf[pos:end], '\r')
	if i < 0 {
		if end-pos > MaxLineLen {
			return nil, 0, protoErr(pos, "line longer than %d bytes", MaxLineLen)
		}
		return nil, 0, errIncomplete
	}
	cr := pos + i
	if err := checkLF(buf, cr); err != nil {
		return nil, 0, err
	}
	return buf[pos:cr:cr], cr + 2, nil
}

// checkLF checks that the CR at buf[cr] is followed by LF.
func checkLF(buf []byte, cr int) error {
	if cr+1 >= len(buf) {
		return errIncomplete
	}
	if buf[cr+1] != '\n' {
		return protoErr(cr+1, "CR not followed by LF")
	}
	return nil
}

// scanInt parses a decimal integer in canonical form (optional '-', no
// leading zeros, no "-0") ending in CRLF at buf[pos]. It returns the value
// and the offset just past the CRLF. Bad input is reported as soon as it is
// seen, so a hostile line cannot make the caller wait for more data.
func scanInt(buf []byte, pos int) (int64, int, error) {
	i, neg := pos, false
	if i < len(buf) && buf[i] == '-' {
		neg, i = true, i+1
	}
	u, i, err := scanDigits(buf, i, neg)
	if err != nil {
		return 0, 0, err
	}
	if err := checkLF(buf, i); err != nil {
		return 0, 0, err
	}
	if neg {
		return -int64(u), i + 2, nil // u <= 1<<63, so this wraps to MinInt64 correctly
	}
	return int64(u), i + 2, nil
}

// scanDigits reads digits from buf[start] up to a CR and returns their value
// and the offset of the CR.
func scanDigits(buf []byte, start int, neg bool) (uint64, int, error) {
	var u uint64
	i := start
	for ; i < len(buf); i++ {
		d := buf[i] - '0'
		if d > 9 {
			break
		}
		if i-start == maxDigits {
			return 0, 0, protoErr(start, "integer overflows 64 bits")
		}
		u = u*10 + uint64(d) // cannot wrap: at most 19 digits
	}
	if i == len(buf) {
		return 0, 0, errIncomplete
	}
	return checkDigits(buf, start, i, u, neg)
}

// maxDigits is the number of digits of math.MaxInt64.
const maxDigits = 19

// checkDigits checks the integer scanDigits read from buf[start:end].
func checkDigits(buf []byte, start, end int, u uint64, neg bool) (uint64, int, error) {
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	switch {
	case buf[end] != '\r':
		return 0, 0, protoErr(end, "invalid byte %q in integer", buf[end])
	case end == start:
		return 0, 0, protoErr(end, "empty integer")
	case buf[start] == '0' && end-start > 1:
		return 0, 0, protoErr(start, "integer with a leading zero")
	case neg && u == 0:
		return 0, 0, protoErr(start-1, "negative zero")
	case u > limit:
		return 0, 0, protoErr(start, "integer overflows 64 bits")
	}
	return u, end, nil
}

// shortLen reads a length of one to three digits in canonical form and
// its CRLF at buf[pos], without loops or calls: the lengths of a wide
// reply's elements (a 64-key MGET) and of most aggregates. ok is false for
// anything else, which scanLen then reads (and judges) the long way.
func shortLen(buf []byte, pos int) (int64, int, bool) {
	if pos < 0 || len(buf)-pos < 5 {
		return 0, 0, false
	}
	b := buf[pos : pos+5]
	d0, d1, d2 := b[0]-'0', b[1]-'0', b[2]-'0'
	switch {
	case d0 > 9:
		return 0, 0, false
	case b[1] == '\r' && b[2] == '\n':
		return int64(d0), pos + 3, true
	case d0 == 0 || d1 > 9:
		return 0, 0, false
	case b[2] == '\r' && b[3] == '\n':
		return int64(d0)*10 + int64(d1), pos + 4, true
	case d2 <= 9 && b[3] == '\r' && b[4] == '\n':
		return int64(d0)*100 + int64(d1)*10 + int64(d2), pos + 5, true
	}
	return 0, 0, false
}

// scanLen parses the length of a bulk value or aggregate at buf[pos]. When
// null is true, -1 is accepted and returned as is.
func scanLen(buf []byte, pos int, max int64, null bool) (int64, int, error) {
	if n, next, ok := shortLen(buf, pos); ok {
		return n, next, nil // below 1000, within every limit
	}
	if pos < len(buf) && buf[pos] == '?' {
		return 0, 0, protoErr(pos, "streamed (?) lengths are not supported")
	}
	n, next, err := scanInt(buf, pos)
	switch {
	case err != nil:
		return 0, 0, err
	case n == -1 && null:
		return n, next, nil
	case n < 0:
		return 0, 0, protoErr(pos, "negative length %d", n)
	case n > max:
		return 0, 0, protoErr(pos, "length %d exceeds the limit of %d", n, max)
	}
	return n, next, nil
}
