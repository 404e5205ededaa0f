package resp

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// mgetKeys are the 64 keys of the MGET the benchmarks write.
var mgetKeys = func() []string {
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(100000+i)
	}
	return keys
}()

// mgetReply is a 64-element array of 128-byte bulk strings.
var mgetReply = func() []byte {
	b := AppendArrayHeader(nil, 64)
	for i := range 64 {
		b = AppendBulkString(b, strings.Repeat(string(rune('a'+i%26)), 128))
	}
	return b
}()

var getReply = AppendBulkString(nil, strings.Repeat("x", 128))

func writeMGET(buf []byte, id int64) []byte {
	buf = AppendArrayHeader(buf[:0], len(mgetKeys)+2)
	buf = AppendBulkString(buf, "MGET")
	for _, k := range mgetKeys {
		buf = AppendBulkString(buf, k)
	}
	return AppendBulkInt(buf, id)
}

// readAll parses one reply and visits every element the way the engine
// stores them into variables.
func readAll(r *Reader, buf []byte) int {
	n, err := r.Parse(buf)
	if err != nil || n == 0 {
		panic("bad benchmark reply")
	}
	total := 0
	vals := r.Values()
	for i := r.First(r.Top()); i >= 0; i = r.Next(i) {
		total += len(vals[i].Bytes)
	}
	return total
}

func TestZeroAllocs(t *testing.T) {
	var r Reader
	buf := make([]byte, 0, 4096)
	double := []byte(",3.141592653589793\r\n")
	tests := []struct {
		name string
		f    func()
	}{
		{"write MGET 64 keys", func() { buf = writeMGET(buf, 12345) }},
		{"read 64x128 array", func() { readAll(&r, mgetReply) }},
		{"read GET reply", func() { r.Parse(getReply) }},
		{"read double", func() { r.Parse(double) }},
		{"validate only", func() { r.ParseDepth(mgetReply, 0) }},
		{"error class", func() { _ = ErrorClass([]byte("WRONGTYPE Operation against a key")) }},
	}
	readAll(&r, mgetReply) // let Values grow once
	for _, tt := range tests {
		if n := testing.AllocsPerRun(100, tt.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tt.name, n)
		}
	}
}

func BenchmarkWriteMGET64(b *testing.B) {
	buf := make([]byte, 0, 4096)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf = writeMGET(buf, int64(i))
	}
	b.SetBytes(int64(len(buf)))
}

func BenchmarkReadArray64x128(b *testing.B) {
	var r Reader
	b.SetBytes(int64(len(mgetReply)))
	b.ReportAllocs()
	for b.Loop() {
		readAll(&r, mgetReply)
	}
}

func BenchmarkReadArray64x128Depth0(b *testing.B) {
	var r Reader
	b.SetBytes(int64(len(mgetReply)))
	b.ReportAllocs()
	for b.Loop() {
		r.ParseDepth(mgetReply, 0)
	}
}

func BenchmarkReadGET(b *testing.B) {
	var r Reader
	b.SetBytes(int64(len(getReply)))
	b.ReportAllocs()
	for b.Loop() {
		r.Parse(getReply)
	}
}

func BenchmarkReadOK(b *testing.B) {
	var r Reader
	ok := []byte("+OK\r\n")
	b.ReportAllocs()
	for b.Loop() {
		r.Parse(ok)
	}
}

// encodeTwoPass is how Session.Encode wrote a command before it wrote list
// elements in place: every argument substituted into a scratch buffer by
// AppendArgs, then copied as a bulk string. It is the reference of
// TestEncodeInPlace and the "before" of BenchmarkEncodeMGET64.
func encodeTwoPass(args []byte, ends []int, out []byte, cmd *script.Command, vars *script.Vars) ([]byte, []byte, []int) {
	args, ends, _ = cmd.RESP.AppendArgs(vars, args[:0], ends[:0])
	out = AppendArrayHeader(out, len(ends))
	start := 0
	for _, end := range ends {
		out = AppendBulk(out, args[start:end])
		start = end
	}
	return out, args, ends
}

// TestEncodeInPlace checks the bytes Encode writes against encodeTwoPass's
// for list arguments with and without literals around them, empty lists,
// negative and wide elements, and lists in arguments that also refer to
// a scalar (the generic path).
func TestEncodeInPlace(t *testing.T) {
	p := sessionProgram(t, "\\set k 7\n"+
		"\\resp MGET gbench:item::keys\n"+
		"\\resp MGET :keys\n"+
		"\\resp MGET a:{:keys}:b c\n"+
		"\\resp MGET x::k::keys y\n"+
		"\\resp SET :k v\n")
	vars := script.NewVars(p.Syms)
	vars.SetInt(p.Syms.Slot("k"), 7)
	keys := p.Syms.Slot("keys")
	lists := [][]int64{nil, {1}, {-5, 0, 9, 10, 99, 100, 12345678901234, math.MinInt64, math.MaxInt64}}
	for _, list := range lists {
		vars.SetList(keys, list)
		for _, cmd := range p.Scripts[0].Commands[1:] {
			s := NewSession()
			got, err := s.Encode([]byte("prefix"), cmd, 0, vars)
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := encodeTwoPass(nil, nil, []byte("prefix"), cmd, vars)
			if string(got) != string(want) {
				t.Errorf("%v with %v:\n got %q\nwant %q", cmd.RESP.Args, list, got, want)
			}
			if s.queue[0].sent != int64(len(want)-len("prefix")) {
				t.Errorf("%v: %d bytes sent, want %d", cmd.RESP.Args, s.queue[0].sent, len(want)-len("prefix"))
			}
		}
	}
}

// mgetProgram is workloads/resp-mget64.sql: a 64-key list and one MGET.
func mgetProgram(b testing.TB) (*script.Command, *script.Vars) {
	s, err := script.Parse("b.sql", "\\set keys range(1, 64)\n\\resp MGET gbench:item::keys\n", 1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
	if err != nil {
		b.Fatal(err)
	}
	vars := script.NewVars(p.Syms)
	xs := make([]int64, 64)
	for i := range xs {
		xs[i] = int64(100000 + i)
	}
	vars.SetList(p.Syms.Slot("keys"), xs)
	return s.Commands[1], vars
}

// BenchmarkEncodeMGET64 writes a 64-key MGET the way Session.Encode does
// (inplace) and the way it did (twopass), in the same run.
func BenchmarkEncodeMGET64(b *testing.B) {
	cmd, vars := mgetProgram(b)
	out := make([]byte, 0, 4096)
	b.Run("inplace", func(b *testing.B) {
		s := NewSession()
		b.ReportAllocs()
		for b.Loop() {
			out, _ = s.Encode(out[:0], cmd, 0, vars)
			s.queue, s.head = s.queue[:0], 0
		}
	})
	b.Run("twopass", func(b *testing.B) {
		var args []byte
		var ends []int
		b.ReportAllocs()
		for b.Loop() {
			out, args, ends = encodeTwoPass(args, ends, out[:0], cmd, vars)
		}
	})
}

// BenchmarkDecodeMGET64 decodes a 64x128 MGET reply through the Session.
func BenchmarkDecodeMGET64(b *testing.B) {
	cmd, vars := mgetProgram(b)
	s := NewSession()
	var rep driver.Reply
	out := make([]byte, 0, 4096)
	b.SetBytes(int64(len(mgetReply)))
	b.ReportAllocs()
	for b.Loop() {
		out, _ = s.Encode(out[:0], cmd, 0, vars)
		if _, done, _ := s.Decode(mgetReply, vars, &rep); !done {
			b.Fatal("no reply")
		}
	}
}
