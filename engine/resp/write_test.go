package resp

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestAppend(t *testing.T) {
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		// Each writer on its own, appending to what is there.
		{"array header", AppendArrayHeader([]byte("x"), 3), "x*3\r\n"},
		{"empty array header", AppendArrayHeader(nil, 0), "*0\r\n"},
		{"bulk", AppendBulk(nil, []byte("foo")), "$3\r\nfoo\r\n"},
		{"nil bulk is empty, not null", AppendBulk(nil, nil), "$0\r\n\r\n"},
		{"binary bulk", AppendBulk(nil, []byte("a\r\nb\x00")), "$5\r\na\r\nb\x00\r\n"},
		{"bulk string", AppendBulkString(nil, "héllo"), "$6\r\nhéllo\r\n"},
		{"bulk int", AppendBulkInt(nil, 42), "$2\r\n42\r\n"},
		{"bulk int zero", AppendBulkInt(nil, 0), "$1\r\n0\r\n"},
		{"bulk int min", AppendBulkInt(nil, math.MinInt64), "$20\r\n-9223372036854775808\r\n"},
		{"bulk int max", AppendBulkInt(nil, math.MaxInt64), "$19\r\n9223372036854775807\r\n"},
		{"command", AppendCommand(nil, "SET", "k", ""), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"},
		{"command without arguments", AppendCommand(nil), "*0\r\n"},
	}
	for _, tt := range tests {
		if string(tt.got) != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

// TestAppendRoundTrip writes commands with every writer and reads them back
// with the Reader.
func TestAppendRoundTrip(t *testing.T) {
	big := strings.Repeat("v", 70_000)
	ints := []int64{0, 1, -1, 10, math.MaxInt64, math.MinInt64}
	var b []byte
	b = AppendArrayHeader(b, 3+len(ints))
	b = AppendBulkString(b, "RPUSH")
	b = AppendBulk(b, []byte("key\r\nwith crlf"))
	b = AppendBulkString(b, big)
	for _, v := range ints {
		b = AppendBulkInt(b, v)
	}
	var r Reader
	n, err := r.Parse(b)
	if n != len(b) || err != nil {
		t.Fatalf("Parse = %d, %v; want %d, nil", n, err, len(b))
	}
	var got []string
	for i := r.First(r.Top()); i >= 0; i = r.Next(i) {
		if k := r.Values()[i].Kind; k != KindBulk {
			t.Fatalf("element %d is a %s", i, k)
		}
		got = append(got, string(r.Values()[i].Bytes))
	}
	want := []string{"RPUSH", "key\r\nwith crlf", big}
	for _, v := range ints {
		want = append(want, strconv.FormatInt(v, 10))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("round trip:\n got %.100q\nwant %.100q", got, want)
	}
}
