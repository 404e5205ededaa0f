package resp

import (
	"strconv"
	"strings"
	"testing"
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
