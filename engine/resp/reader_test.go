package resp

import (
	"errors"
	"strings"
	"testing"
)

// replyCase is one complete reply and what Parse must make of it.
type replyCase struct {
	name string
	in   string
	want string // render of the values
}

var replyCases = []replyCase{
	// RESP2 simple types
	{"ok", "+OK\r\n", `simple "OK"`},
	{"empty simple string", "+\r\n", `simple ""`},
	{"simple string with LF inside", "+a\nb\r\n", `simple "a\nb"`},
	{"error", "-ERR unknown command 'foo'\r\n", `error "ERR unknown command 'foo'"`},
	{"zero", ":0\r\n", "int 0"},
	{"negative", ":-1\r\n", "int -1"},
	{"max int64", ":9223372036854775807\r\n", "int 9223372036854775807"},
	{"min int64", ":-9223372036854775808\r\n", "int -9223372036854775808"},
	// bulk strings
	{"empty bulk", "$0\r\n\r\n", `bulk ""`},
	{"bulk", "$5\r\nhello\r\n", `bulk "hello"`},
	{"binary bulk with CRLF inside", "$4\r\na\r\nb\r\n", `bulk "a\r\nb"`},
	{"null bulk", "$-1\r\n", "null"},
	// arrays
	{"null array", "*-1\r\n", "null"},
	{"empty array", "*0\r\n", "[]"},
	{"array", "*2\r\n$3\r\nfoo\r\n:1\r\n", `[bulk "foo" int 1]`},
	{"mget with a miss", "*3\r\n$1\r\na\r\n$-1\r\n$1\r\nc\r\n", `[bulk "a" null bulk "c"]`},
	{"nested", "*3\r\n*1\r\n:1\r\n*0\r\n*2\r\n+a\r\n*1\r\n-E\r\n", `[[int 1] [] [simple "a" [error "E"]]]`},
	// RESP3 scalars
	{"resp3 null", "_\r\n", "null"},
	{"true", "#t\r\n", "bool true"},
	{"false", "#f\r\n", "bool false"},
	{"double", ",1.5\r\n", "double 1.5"},
	{"double without fraction", ",10\r\n", "double 10"},
	{"double with exponent", ",-1.5E-3\r\n", "double -0.0015"},
	{"inf", ",inf\r\n", "double +Inf"},
	{"negative inf", ",-inf\r\n", "double -Inf"},
	{"nan", ",nan\r\n", "double NaN"},
	{"libc negative nan", ",-nan\r\n", "double NaN"},
	{"libc nan with payload", ",nan(123)\r\n", "double NaN"},
	{"double out of range", ",1e400\r\n", "double +Inf"},
	{"big number", "(3492890328409238509324850943850943825024385\r\n", `big "3492890328409238509324850943850943825024385"`},
	{"negative big number", "(-12\r\n", `big "-12"`},
	{"blob error", "!21\r\nSYNTAX invalid syntax\r\n", `blob "SYNTAX invalid syntax"`},
	{"verbatim", "=15\r\ntxt:Some string\r\n", `verbatim txt "Some string"`},
	{"empty verbatim", "=4\r\nmkd:\r\n", `verbatim mkd ""`},
	// RESP3 aggregates
	{"map", "%2\r\n+first\r\n:1\r\n+second\r\n:2\r\n", `{simple "first"=int 1 simple "second"=int 2}`},
	{"empty map", "%0\r\n", "{}"},
	{"set", "~2\r\n+a\r\n#t\r\n", `set[simple "a" bool true]`},
	{"push", ">3\r\n+message\r\n+ch\r\n$2\r\nhi\r\n", `push[simple "message" simple "ch" bulk "hi"]`},
	{"map of arrays", "%1\r\n$1\r\nk\r\n*2\r\n:1\r\n_\r\n", `{bulk "k"=[int 1 null]}`},
	// attributes
	{"top-level attribute", "|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.5\r\n*2\r\n:1\r\n:2\r\n",
		`|{simple "key-popularity"={bulk "a"=double 0.5}}| [int 1 int 2]`},
	{"nested attribute", "*3\r\n:1\r\n:2\r\n|1\r\n+ttl\r\n:3600\r\n:3\r\n",
		`[int 1 int 2 |{simple "ttl"=int 3600}| int 3]`},
	{"attribute on the last element", "*1\r\n|0\r\n:1\r\n", `[|{}| int 1]`},
	{"two attributes", "|0\r\n|1\r\n+a\r\n+b\r\n+OK\r\n", `|{}| |{simple "a"=simple "b"}| simple "OK"`},
}

func TestParse(t *testing.T) {
	var r Reader
	for _, c := range replyCases {
		n, err := r.Parse([]byte(c.in))
		if err != nil || n != len(c.in) {
			t.Errorf("%s: Parse(%q) = %d, %v; want %d, nil", c.name, c.in, n, err, len(c.in))
			continue
		}
		if got := render(r.Values()); got != c.want {
			t.Errorf("%s: Parse(%q) values\n got %s\nwant %s", c.name, c.in, got, c.want)
		}
		checkLinks(t, r.Values())
	}
}

// checkLinks checks Depth, Parent and End of every value against each other.
func checkLinks(t *testing.T, vals []Value) {
	t.Helper()
	for i, v := range vals {
		if v.End <= int32(i) || int(v.End) > len(vals) {
			t.Fatalf("value %d: End %d out of range", i, v.End)
		}
		if v.Parent == -1 {
			if v.Depth != 0 {
				t.Fatalf("value %d: top-level value at depth %d", i, v.Depth)
			}
			continue
		}
		p := vals[v.Parent]
		if v.Parent >= int32(i) || v.Depth != p.Depth+1 || v.End > p.End {
			t.Fatalf("value %d: bad parent link %+v of %+v", i, p, v)
		}
	}
}

func TestParseLeavesTrailingBytes(t *testing.T) {
	var r Reader
	buf := []byte("+OK\r\n:1\r\n$-1\r\n")
	var got []string
	for len(buf) > 0 {
		n, err := r.Parse(buf)
		if err != nil || n == 0 {
			t.Fatalf("Parse(%q) = %d, %v", buf, n, err)
		}
		got = append(got, render(r.Values()))
		buf = buf[n:]
	}
	if s := strings.Join(got, ", "); s != `simple "OK", int 1, null` {
		t.Errorf("replies: %s", s)
	}
}

func TestParseDeepestNesting(t *testing.T) {
	in := strings.Repeat("*1\r\n", MaxDepth) + ":7\r\n"
	var r Reader
	n, err := r.Parse([]byte(in))
	if err != nil || n != len(in) {
		t.Fatalf("Parse = %d, %v; want %d, nil", n, err, len(in))
	}
	if v := r.Values()[MaxDepth]; v.Kind != KindInt || v.Depth != MaxDepth {
		t.Errorf("innermost value %+v", v)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		// framing
		{"x", `resp: invalid type byte 'x' at offset 0`},
		{"*1\r\nx", `resp: invalid type byte 'x' at offset 4`},
		{"\r\n", `resp: invalid type byte '\r' at offset 0`},
		{"+OK\rX", `resp: CR not followed by LF at offset 4`},
		{"+" + strings.Repeat("a", MaxLineLen+1), `resp: line longer than 65536 bytes at offset 1`},
		// integers, reported before their CRLF arrives
		{":12a", `resp: invalid byte 'a' in integer at offset 3`},
		{":\r\n", `resp: empty integer at offset 1`},
		{":-\r\n", `resp: empty integer at offset 2`},
		{":-0\r\n", `resp: negative zero at offset 1`},
		{":007\r\n", `resp: integer with a leading zero at offset 1`},
		{":0\r\n:00\r\n"[4:], `resp: integer with a leading zero at offset 1`},
		{":+7\r\n", `resp: invalid byte '+' in integer at offset 1`},
		{":9223372036854775808\r\n", `resp: integer overflows 64 bits at offset 1`},
		{":-9223372036854775809\r\n", `resp: integer overflows 64 bits at offset 2`},
		{":99999999999999999999999", `resp: integer overflows 64 bits at offset 1`},
		{":1\r", ""}, // incomplete, not an error
		{":1\rx", `resp: CR not followed by LF at offset 3`},
		// lengths
		{"$-2\r\n", `resp: negative length -2 at offset 1`},
		{"$536870913\r\n", `resp: length 536870913 exceeds the limit of 536870912 at offset 1`},
		{"*16777217\r\n", `resp: length 16777217 exceeds the limit of 16777216 at offset 1`},
		{"%16777217\r\n", `resp: length 16777217 exceeds the limit of 16777216 at offset 1`},
		{"$1\nx", `resp: invalid byte '\n' in integer at offset 2`},
		{"$?\r\n", `resp: streamed (?) lengths are not supported at offset 1`},
		{"*?\r\n", `resp: streamed (?) lengths are not supported at offset 1`},
		{"!-1\r\n", `resp: negative length -1 at offset 1`},
		{"%-1\r\n", `resp: negative length -1 at offset 1`},
		{"~-1\r\n", `resp: negative length -1 at offset 1`},
		// payload framing
		{"$3\r\nfooX\r\n", `resp: bulk string not terminated by CRLF at offset 7`},
		{"$3\r\nfooX", `resp: bulk string not terminated by CRLF at offset 7`},
		{"$3\r\nfoo\rX", `resp: CR not followed by LF at offset 8`},
		{"!1\r\nEE", `resp: blob error not terminated by CRLF at offset 5`},
		{"=3\r\ntxt\r\n", `resp: verbatim string without a format prefix at offset 4`},
		{"=4\r\ntxt!\r\n", `resp: verbatim string without a format prefix at offset 4`},
		// RESP3 scalars
		{"_x\r\n", `resp: null: unexpected text at offset 1`},
		{"#x\r\n", `resp: boolean: want t or f at offset 1`},
		{"#\r\n", `resp: boolean: want t or f at offset 1`},
		{",abc\r\n", `resp: double: not a number at offset 1`},
		{",\r\n", `resp: double: not a number at offset 1`},
		{"(12a\r\n", `resp: big number: not an integer at offset 1`},
		{"(-\r\n", `resp: big number: not an integer at offset 1`},
		// nesting
		{strings.Repeat("*1\r\n", MaxDepth+1), `resp: aggregates nested deeper than 128 at offset 516`},
		{strings.Repeat("|1\r\n", MaxDepth+1), `resp: aggregates nested deeper than 128 at offset 516`},
	}
	var r Reader
	for _, tt := range tests {
		n, err := r.Parse([]byte(tt.in))
		got := ""
		if err != nil {
			got = err.Error()
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Errorf("Parse(%.40q): error %T is not a *ProtocolError", tt.in, err)
			}
		}
		if got != tt.want || n != 0 || len(r.Values()) != 0 {
			t.Errorf("Parse(%.40q) = %d, %q, %d values; want 0, %q, 0 values", tt.in, n, got, len(r.Values()), tt.want)
		}
	}
}

func TestParseMaxLenHeadersNeedNoPayload(t *testing.T) {
	// The largest allowed lengths are accepted from the header alone: the
	// reader waits for the data and asks for it through Need, and allocates
	// nothing for it.
	var r Reader
	in := []byte("$536870912\r\n")
	if n, err := r.Parse(in); n != 0 || err != nil {
		t.Fatalf("Parse(%q) = %d, %v; want 0, nil", in, n, err)
	}
	if want := len(in) + 512<<20 + 2; r.Need() != want {
		t.Errorf("Need() = %d, want %d", r.Need(), want)
	}
	if n, err := r.Parse([]byte("*16777216\r\n:1\r\n")); n != 0 || err != nil {
		t.Fatalf("Parse(*16777216...) = %d, %v; want 0, nil", n, err)
	}
}

func TestTraversal(t *testing.T) {
	in := "|1\r\n+a\r\n+b\r\n*4\r\n:1\r\n|1\r\n+c\r\n+d\r\n*1\r\n:2\r\n$-1\r\n%1\r\n+k\r\n+v\r\n"
	var r Reader
	if _, err := r.Parse([]byte(in)); err != nil {
		t.Fatal(err)
	}
	vals := r.Values()
	top := r.Top()
	if vals[top].Kind != KindArray || vals[top].Int != 4 {
		t.Fatalf("Top() = %d: %+v", top, vals[top])
	}
	var got []string
	for i := r.First(top); i >= 0; i = r.Next(i) {
		got = append(got, renderAt(vals, i))
	}
	want := `int 1|[int 2]|null|{simple "k"=simple "v"}`
	if s := strings.Join(got, "|"); s != want {
		t.Errorf("elements:\n got %s\nwant %s", s, want)
	}
	if r.First(r.First(top)) != -1 || r.First(-1) != -1 || r.Next(-1) != -1 {
		t.Error("First or Next found children where there are none")
	}
}

func TestParseDepth(t *testing.T) {
	in := []byte("*2\r\n*2\r\n:1\r\n:2\r\n|1\r\n+a\r\n+b\r\n:3\r\n")
	tests := []struct {
		depth int
		want  string
	}{
		{-1, "[]"}, // the top value only; its Int still says 2
		{0, "[]"},
		{1, "[[] |{}| int 3]"},
		{2, `[[int 1 int 2] |{simple "a"=simple "b"}| int 3]`},
		{MaxDepth + 1, `[[int 1 int 2] |{simple "a"=simple "b"}| int 3]`},
	}
	var r Reader
	for _, tt := range tests {
		n, err := r.ParseDepth(in, tt.depth)
		if n != len(in) || err != nil {
			t.Fatalf("ParseDepth(%d) = %d, %v", tt.depth, n, err)
		}
		if got := render(r.Values()); got != tt.want {
			t.Errorf("ParseDepth(%d): got %s, want %s", tt.depth, got, tt.want)
		}
		if top := r.Values()[r.Top()]; top.Int != 2 {
			t.Errorf("ParseDepth(%d): top Int = %d", tt.depth, top.Int)
		}
		checkLinks(t, r.Values())
	}
}

func TestValueHelpers(t *testing.T) {
	var r Reader
	if _, err := r.Parse([]byte("!3\r\nERR\r\n")); err != nil {
		t.Fatal(err)
	}
	if v := &r.Values()[0]; !v.IsError() || v.IsAggregate() || v.Children() != 0 {
		t.Errorf("blob error: IsError %v IsAggregate %v Children %d", v.IsError(), v.IsAggregate(), v.Children())
	}
	if _, err := r.Parse([]byte("%1\r\n:1\r\n:2\r\n")); err != nil {
		t.Fatal(err)
	}
	if v := &r.Values()[0]; v.IsError() || !v.IsAggregate() || v.Children() != 2 {
		t.Errorf("map: IsError %v IsAggregate %v Children %d", v.IsError(), v.IsAggregate(), v.Children())
	}
	if Kind(0).String() != "invalid kind" || KindVerbatim.String() != "verbatim string" {
		t.Error("Kind.String")
	}
}

// TestShortLen checks the fast path of scanLen against the slow one on
// every input it could take: whatever shortLen accepts, scanInt must read
// the same way.
func TestShortLen(t *testing.T) {
	alphabet := []byte("0123456789\r\n-?x")
	buf := make([]byte, 5)
	var rec func(i int)
	accepted := 0
	rec = func(i int) {
		if i == len(buf) {
			n, next, ok := shortLen(buf, 0)
			if !ok {
				return
			}
			accepted++
			wn, wnext, err := scanInt(buf, 0)
			if err != nil || wn != n || wnext != next || n < 0 || n > 999 {
				t.Fatalf("shortLen(%q) = %d, %d; scanInt: %d, %d, %v", buf, n, next, wn, wnext, err)
			}
			return
		}
		for _, c := range alphabet {
			buf[i] = c
			rec(i + 1)
		}
	}
	rec(0)
	// 0-9 with 225 tails, 10-99 with 15, 100-999 with 1.
	if want := 10*15*15 + 90*15 + 900; accepted != want {
		t.Errorf("shortLen accepted %d inputs, want %d", accepted, want)
	}
	if _, _, ok := shortLen([]byte("5\r\n"), 0); ok {
		t.Error("shortLen read past a short buffer") // left to scanLen
	}
}
