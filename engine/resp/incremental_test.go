package resp

import (
	"strings"
	"testing"
)

// TestParseEveryPrefix checks that every strict prefix of a reply is
// reported as incomplete, with a Need that neither asks for nothing nor for
// more than the reply, and that the second part of any split then completes
// it.
func TestParseEveryPrefix(t *testing.T) {
	var r Reader
	for _, c := range replyCases {
		for k := range len(c.in) {
			n, err := r.Parse([]byte(c.in[:k]))
			if n != 0 || err != nil || len(r.Values()) != 0 {
				t.Fatalf("%s: Parse(%q) = %d, %v; want 0, nil", c.name, c.in[:k], n, err)
			}
			if need := r.Need(); need <= k || need > len(c.in) {
				t.Fatalf("%s: after %d of %d bytes Need() = %d", c.name, k, len(c.in), need)
			}
			// Split at k: the same buffer, now holding the rest too.
			buf := append([]byte(c.in[:k]), c.in[k:]...)
			if n, err := r.Parse(buf); n != len(c.in) || err != nil || render(r.Values()) != c.want {
				t.Fatalf("%s: split at %d: Parse = %d, %v, %s", c.name, k, n, err, render(r.Values()))
			}
			if r.Need() != 0 {
				t.Fatalf("%s: Need() = %d after a complete reply", c.name, r.Need())
			}
		}
	}
}

// TestParseByteByByte feeds all replies as one pipelined stream, a byte at a
// time, the way a non-blocking reader receives them in the worst case.
func TestParseByteByByte(t *testing.T) {
	var stream strings.Builder
	for _, c := range replyCases {
		stream.WriteString(c.in)
	}
	in := stream.String()
	var r Reader
	var buf []byte
	next := 0 // index in replyCases of the reply being received
	for i := range len(in) {
		buf = append(buf, in[i])
		n, err := r.Parse(buf)
		if err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
		if n == 0 {
			continue
		}
		c := replyCases[next]
		if n != len(c.in) || render(r.Values()) != c.want {
			t.Fatalf("%s: got %d bytes %s; want %d bytes %s", c.name, n, render(r.Values()), len(c.in), c.want)
		}
		buf = append(buf[:0], buf[n:]...)
		next++
	}
	if next != len(replyCases) || len(buf) != 0 {
		t.Errorf("decoded %d of %d replies, %d bytes left", next, len(replyCases), len(buf))
	}
}

func TestNeedForLargeBulk(t *testing.T) {
	payload := strings.Repeat("x", 100_000)
	in := "*2\r\n:1\r\n$100000\r\n" + payload + "\r\n"
	var r Reader
	head := len(in) - len(payload) - 2
	for _, k := range []int{head, head + 1, len(in) - 2, len(in) - 1} {
		if n, err := r.Parse([]byte(in[:k])); n != 0 || err != nil {
			t.Fatalf("Parse(%d bytes) = %d, %v", k, n, err)
		}
		if r.Need() != len(in) {
			t.Errorf("after %d bytes Need() = %d, want %d", k, r.Need(), len(in))
		}
	}
	// Before the header is complete only one more byte is known to be needed.
	if r.Parse([]byte(in[:head-1])); r.Need() != head {
		t.Errorf("in the header Need() = %d, want %d", r.Need(), head)
	}
}

func TestNeedForAggregates(t *testing.T) {
	tests := []struct {
		in   string
		need int
	}{
		// in, then the lower bound: one byte more, or the end of the bulk
		// being read, plus 3 per value the aggregates still announce
		{"*3\r\n", 5 + 3*2},
		{"*3\r\n*2\r\n:1\r\n", 13 + 3*2},
		{"*2\r\n%2\r\n+a\r\n", 13 + 3*(1+2)},
		{"*2\r\n:1\r\n$5\r\nab", 19 + 0}, // the bulk ends the reply
		{"*3\r\n$5\r\nab", 15 + 3*2},
	}
	var r Reader
	for _, tt := range tests {
		if n, err := r.Parse([]byte(tt.in)); n != 0 || err != nil {
			t.Fatalf("Parse(%q) = %d, %v", tt.in, n, err)
		}
		if r.Need() != tt.need {
			t.Errorf("Parse(%q): Need() = %d, want %d", tt.in, r.Need(), tt.need)
		}
	}
}
