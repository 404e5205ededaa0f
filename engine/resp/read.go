package resp

import (
	"bytes"
	"errors"
	"math"
	"strconv"
)

// readValue decodes the value starting at buf[pos] into v, without its
// children. It returns the offset just past the value's own bytes and, for
// an aggregate, the number of child values that follow.
func (r *Reader) readValue(buf []byte, pos int, v *Value) (int, int64, error) {
	if pos >= len(buf) {
		return 0, 0, errIncomplete
	}
	v.Kind = Kind(buf[pos])
	switch v.Kind {
	case KindSimple, KindError:
		return readText(buf, pos, v)
	case KindInt:
		return readInt(buf, pos, v)
	case KindBulk, KindBlobError, KindVerbatim:
		return r.readBlob(buf, pos, v)
	case KindArray, KindSet, KindPush, KindMap, KindAttribute:
		return readAggregate(buf, pos, v)
	case KindNull, KindBool, KindDouble, KindBigNumber:
		return readScalar(buf, pos, v)
	}
	return 0, 0, protoErr(pos, "invalid type byte %q", buf[pos])
}

func readText(buf []byte, pos int, v *Value) (int, int64, error) {
	line, next, err := scanLine(buf, pos+1)
	v.Bytes = line
	return next, 0, err
}

func readInt(buf []byte, pos int, v *Value) (int, int64, error) {
	n, next, err := scanInt(buf, pos+1)
	v.Int = n
	return next, 0, err
}

// readBlob reads a bulk string, blob error or verbatim string. When the
// payload is not all there yet it records in r.need how long buf must be.
func (r *Reader) readBlob(buf []byte, pos int, v *Value) (int, int64, error) {
	n, start, err := scanLen(buf, pos+1, MaxBulkLen, v.Kind == KindBulk)
	if err != nil {
		return 0, 0, err
	}
	if n == -1 {
		v.Kind = KindNull
		return start, 0, nil
	}
	end := start + int(n)
	if end+2 > len(buf) {
		r.need = end + 2
		if end >= len(buf) || buf[end] == '\r' {
			return 0, 0, errIncomplete
		}
	}
	if buf[end] != '\r' {
		return 0, 0, protoErr(end, "%s not terminated by CRLF", v.Kind)
	}
	if err := checkLF(buf, end); err != nil {
		return 0, 0, err
	}
	v.Bytes = buf[start:end:end]
	if v.Kind == KindVerbatim {
		return end + 2, 0, splitVerbatim(v, start)
	}
	return end + 2, 0, nil
}

// splitVerbatim moves the "txt:" prefix of a verbatim string into v.Format.
func splitVerbatim(v *Value, start int) error {
	if len(v.Bytes) < 4 || v.Bytes[3] != ':' {
		return protoErr(start, "verbatim string without a format prefix")
	}
	copy(v.Format[:], v.Bytes[:3])
	v.Bytes = v.Bytes[4:]
	return nil
}

func readAggregate(buf []byte, pos int, v *Value) (int, int64, error) {
	n, next, err := scanLen(buf, pos+1, MaxAggregateLen, v.Kind == KindArray)
	if err != nil {
		return 0, 0, err
	}
	if n == -1 {
		v.Kind = KindNull
		return next, 0, nil
	}
	v.Int = n
	return next, v.Children(), nil
}

// readScalar reads the RESP3 one-line types other than simple strings.
func readScalar(buf []byte, pos int, v *Value) (int, int64, error) {
	line, next, err := scanLine(buf, pos+1)
	if err != nil {
		return 0, 0, err
	}
	switch v.Kind {
	case KindNull:
		err = checkNull(line)
	case KindBool:
		v.Int, err = parseBool(line)
	case KindDouble:
		v.Bytes = line
		v.Float, err = parseDouble(line)
	case KindBigNumber:
		v.Bytes = line
		err = checkBigNumber(line)
	}
	if err != nil {
		return 0, 0, protoErr(pos+1, "%s: %v", v.Kind, err)
	}
	return next, 0, nil
}

var (
	errNotEmpty  = errors.New("unexpected text")
	errBadBool   = errors.New("want t or f")
	errBadDouble = errors.New("not a number")
	errBadBigNum = errors.New("not an integer")
	nanText      = []byte("nan")
	minusNanText = []byte("-nan")
)

func checkNull(line []byte) error {
	if len(line) != 0 {
		return errNotEmpty
	}
	return nil
}

func parseBool(line []byte) (int64, error) {
	if len(line) == 1 && line[0] == 't' {
		return 1, nil
	}
	if len(line) == 1 && line[0] == 'f' {
		return 0, nil
	}
	return 0, errBadBool
}

// parseDouble accepts what strconv.ParseFloat accepts (including inf, -inf
// and nan) plus the NaN spellings older Redis versions took from libc, such
// as "-nan" and "nan(123)". It does not allocate for texts shorter than 32
// bytes, which covers every double Redis sends.
func parseDouble(line []byte) (float64, error) {
	f, err := strconv.ParseFloat(string(line), 64)
	if err == nil {
		return f, nil
	}
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return f, nil // ±Inf or ±0 for out-of-range exponents, as Redis itself would
	}
	if hasPrefixFold(line, nanText) || hasPrefixFold(line, minusNanText) {
		return math.NaN(), nil
	}
	return 0, errBadDouble
}

func hasPrefixFold(s, prefix []byte) bool {
	return len(s) >= len(prefix) && bytes.EqualFold(s[:len(prefix)], prefix)
}

func checkBigNumber(line []byte) error {
	if len(line) > 0 && line[0] == '-' {
		line = line[1:]
	}
	if len(line) == 0 {
		return errBadBigNum
	}
	for _, c := range line {
		if c < '0' || c > '9' {
			return errBadBigNum
		}
	}
	return nil
}
