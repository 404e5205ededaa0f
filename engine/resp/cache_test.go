package resp

import (
	"testing"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// TestSessionCacheCounters checks each reply's driver.Cache: bytes on the
// wire, keyspace hits and misses of GET-like reads and MGET elements,
// field hits and misses of HGET and HMGET, nothing for error replies and
// other commands.
func TestSessionCacheCounters(t *testing.T) {
	p := sessionProgram(t, `\resp GET a
\resp get b
\resp MGET a b c
\resp HMGET h f g
\resp HGET h f
\resp GETDEL a
\resp SET a 1
\resp GET a
`)
	s := NewSession()
	vars := script.NewVars(p.Syms)
	cmds := p.Scripts[0].Commands
	var out []byte
	var sent []int64
	for i, c := range cmds {
		before := len(out)
		var err error
		if out, err = s.Encode(out, c, i, vars); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, int64(len(out)-before))
	}
	replies := []string{"$1\r\nx\r\n", "$-1\r\n", "*3\r\n$1\r\nx\r\n$-1\r\n_\r\n", "*2\r\n$-1\r\n$2\r\nyy\r\n",
		"$-1\r\n", "-WRONGTYPE no\r\n", "+OK\r\n", "$1\r\n1\r\n"}
	want := []driver.Cache{
		{Hits: 1}, {Misses: 1}, {Hits: 1, Misses: 2}, {FieldHits: 1, FieldMisses: 1},
		{FieldMisses: 1}, {}, {}, {Hits: 1},
	}
	var in []byte
	for _, r := range replies {
		in = append(in, r...)
	}
	for i := range replies {
		var rep driver.Reply
		n, done, err := s.Decode(in, vars, &rep)
		if err != nil || !done {
			t.Fatalf("reply %d: %v %v", i, done, err)
		}
		in = in[n:]
		w := want[i]
		w.Sent, w.Received = sent[i], int64(len(replies[i]))
		if rep.Cache != w {
			t.Errorf("reply %d (%s): %+v, want %+v", i, replies[i], rep.Cache, w)
		}
	}
	if sent[0] != int64(len("*2\r\n$3\r\nGET\r\n$1\r\na\r\n")) {
		t.Errorf("GET a sent %d bytes", sent[0])
	}
}

// TestSessionCacheCountersAllocateNothing: counting adds no allocation to
// a steady-state MGET round trip.
func TestSessionCacheCountersAllocateNothing(t *testing.T) {
	p := sessionProgram(t, "\\resp MGET a b c\n")
	s := NewSession()
	vars := script.NewVars(p.Syms)
	cmd := p.Scripts[0].Commands[0]
	reply := []byte("*3\r\n$1\r\nx\r\n$-1\r\n$1\r\ny\r\n")
	out := make([]byte, 0, 256)
	var rep driver.Reply
	round := func() {
		out, _ = s.Encode(out[:0], cmd, 0, vars)
		s.Decode(reply, vars, &rep)
	}
	round()
	if n := testing.AllocsPerRun(1000, round); n != 0 {
		t.Errorf("an MGET round trip allocates %v times", n)
	}
	if rep.Cache.Hits != 2 || rep.Cache.Misses != 1 {
		t.Errorf("counters %+v", rep.Cache)
	}
}
