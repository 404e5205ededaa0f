package resp

import (
	"bytes"
	"errors"
	"strconv"
	"testing"
)

// FuzzReader checks, for any input, that Parse neither panics nor
// misreports: a complete reply parses the same from an exact-length buffer,
// each of its prefixes is incomplete with a Need within the reply, the
// values are consistently linked, ParseDepth agrees with Parse, and
// re-encoding the values gives a reply that decodes to the same values.
// Seeds are in testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	for _, c := range replyCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Reader
		n, err := r.Parse(data)
		checkOutcome(t, &r, data, n, err)
		if n == 0 {
			return
		}
		want := render(r.Values())
		checkLinks(t, r.Values())
		checkPrefixes(t, data[:n])
		checkDepth0(t, data, n, r.Values()[0])
		checkReencode(t, r.Values(), want)
	})
}

func checkOutcome(t *testing.T, r *Reader, data []byte, n int, err error) {
	t.Helper()
	var pe *ProtocolError
	switch {
	case err != nil && (n != 0 || !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(data)):
		t.Fatalf("Parse = %d, %v (offset out of range or not a ProtocolError)", n, err)
	case err == nil && n == 0 && r.Need() <= len(data):
		t.Fatalf("incomplete with Need() = %d for %d bytes", r.Need(), len(data))
	case n < 0 || n > len(data) || (n > 0 && len(r.Values()) == 0):
		t.Fatalf("Parse = %d for %d bytes, %d values", n, len(data), len(r.Values()))
	}
}

// checkPrefixes checks that strict prefixes of the complete reply are
// incomplete and that Need never overshoots the reply. Long replies are
// sampled to keep the fuzzer fast.
func checkPrefixes(t *testing.T, reply []byte) {
	t.Helper()
	var r Reader
	step := max(1, len(reply)/64)
	for k := 0; k < len(reply); k += step {
		n, err := r.Parse(reply[:k])
		if n != 0 || err != nil {
			t.Fatalf("prefix of %d/%d bytes: Parse = %d, %v", k, len(reply), n, err)
		}
		if need := r.Need(); need <= k || need > len(reply) {
			t.Fatalf("prefix of %d/%d bytes: Need() = %d", k, len(reply), need)
		}
	}
}

func checkDepth0(t *testing.T, data []byte, n int, first Value) {
	t.Helper()
	var r Reader
	m, err := r.ParseDepth(data, 0)
	if m != n || err != nil {
		t.Fatalf("ParseDepth(0) = %d, %v; Parse = %d", m, err, n)
	}
	got := r.Values()[0]
	if got.Kind != first.Kind || got.Int != first.Int || !bytes.Equal(got.Bytes, first.Bytes) {
		t.Fatalf("ParseDepth(0) first value %+v, Parse %+v", got, first)
	}
}

func checkReencode(t *testing.T, vals []Value, want string) {
	t.Helper()
	var b []byte
	for i := 0; i < len(vals); i = int(vals[i].End) {
		b = encode(b, vals, i)
	}
	var r Reader
	n, err := r.Parse(b)
	if n != len(b) || err != nil || render(r.Values()) != want {
		t.Fatalf("re-encoded %q: Parse = %d, %v, %s; want %s", b, n, err, render(r.Values()), want)
	}
}

// encode appends vals[i] and its subtree in RESP form.
func encode(b []byte, vals []Value, i int) []byte {
	v := &vals[i]
	switch v.Kind {
	case KindSimple, KindError, KindDouble, KindBigNumber:
		b = append(append(b, byte(v.Kind)), v.Bytes...)
		return append(b, '\r', '\n')
	case KindInt:
		return append(strconv.AppendInt(append(b, ':'), v.Int, 10), '\r', '\n')
	case KindBool:
		return append(b, '#', "ft"[v.Int], '\r', '\n')
	case KindNull:
		return append(b, "_\r\n"...)
	case KindBulk, KindBlobError:
		b = appendPrefix(b, byte(v.Kind), len(v.Bytes))
		return append(append(b, v.Bytes...), '\r', '\n')
	case KindVerbatim:
		b = appendPrefix(b, '=', len(v.Bytes)+4)
		b = append(append(append(b, v.Format[:]...), ':'), v.Bytes...)
		return append(b, '\r', '\n')
	}
	b = appendPrefix(b, byte(v.Kind), int(v.Int))
	for j := i + 1; j < int(v.End); j = int(vals[j].End) {
		b = encode(b, vals, j)
	}
	return b
}
