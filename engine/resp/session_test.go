package resp

import (
	"errors"
	"testing"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// sessionProgram compiles a one-script program of \resp commands.
func sessionProgram(t *testing.T, src string) *script.Program {
	t.Helper()
	s, err := script.Parse("t.sql", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// text returns a variable's text, or "<unset>".
func text(p *script.Program, vars *script.Vars, name string) string {
	slot, ok := p.Syms.Lookup([]byte(name))
	if !ok {
		return "<no symbol>"
	}
	b, ok := vars.AppendText(nil, slot)
	if !ok {
		return "<unset>"
	}
	return string(b)
}

// TestSessionEncodesAndStores sends commands and decodes canned replies:
// one reply per command, in order, tagged; error replies fail their
// command with a class; \gset stores scalars and arrays.
func TestSessionEncodesAndStores(t *testing.T) {
	p := sessionProgram(t, `\set k 5
\resp GET item::k
\gset
\resp MGET a b
\gset v
\resp INCR x
\set z1 :reply
\set z2 :v1
\set z3 :v2
`)
	s := NewSession()
	vars := script.NewVars(p.Syms)
	vars.SetInt(p.Syms.Slot("k"), 5)
	cmds := p.Scripts[0].Commands
	var out []byte
	for i := 1; i <= 3; i++ {
		var err error
		if out, err = s.Encode(out, cmds[i], i, vars); err != nil {
			t.Fatal(err)
		}
	}
	want := "*2\r\n$3\r\nGET\r\n$6\r\nitem:5\r\n*3\r\n$4\r\nMGET\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$4\r\nINCR\r\n$1\r\nx\r\n"
	if string(out) != want || s.Pending() != 3 {
		t.Fatalf("encoded %q (%d pending), want %q", out, s.Pending(), want)
	}
	in := []byte("$5\r\nhello\r\n*2\r\n:1\r\n$-1\r\n-WRONGTYPE Operation against a key\r\n")
	var r driver.Reply
	var statuses []driver.Status
	for len(in) > 0 {
		n, done, err := s.Decode(in, vars, &r)
		if err != nil || !done {
			t.Fatalf("Decode: done %v, %v", done, err)
		}
		in = in[n:]
		if r.Tag != len(statuses)+1 {
			t.Errorf("reply %d has tag %d", len(statuses)+1, r.Tag)
		}
		statuses = append(statuses, r.Status)
	}
	if statuses[0] != driver.OK || statuses[1] != driver.OK || statuses[2] != driver.Failed {
		t.Errorf("statuses %v, want OK, OK, Failed", statuses)
	}
	if r.Class != "WRONGTYPE" || r.Err.Error() != "WRONGTYPE Operation against a key" {
		t.Errorf("error reply: class %q, %v", r.Class, r.Err)
	}
	if got := text(p, vars, "reply") + "," + text(p, vars, "v1") + "," + text(p, vars, "v2"); got != "hello,1,NULL" {
		t.Errorf("stored %s, want hello,1,NULL", got)
	}
	if s.Pending() != 0 {
		t.Errorf("%d pending after every reply", s.Pending())
	}
}

// TestSessionErrors: a command that cannot be built (two lists in one argument), a reply that cannot
// be stored, a partial reply, and a reply nobody asked for.
func TestSessionErrors(t *testing.T) {
	p := sessionProgram(t, "\\resp MGET :a:b\n\\resp HGETALL h\n\\gset\n")
	s := NewSession()
	vars := script.NewVars(p.Syms)
	vars.SetList(p.Syms.Slot("a"), []int64{1, 2})
	vars.SetList(p.Syms.Slot("b"), []int64{3})
	cmds := p.Scripts[0].Commands
	_, err := s.Encode(nil, cmds[0], 0, vars)
	var ce *driver.CommandError
	if !errors.As(err, &ce) || ce.What != "resp" || ce.Msg != "building the \\resp command failed" || ce.Err == nil {
		t.Fatalf("undefined variable: %v", err)
	}
	if _, err := s.Encode(nil, cmds[1], 1, vars); err != nil {
		t.Fatal(err)
	}
	var r driver.Reply
	full := []byte("%1\r\n$1\r\nf\r\n$1\r\nv\r\n")
	if n, done, err := s.Decode(full[:7], vars, &r); n != 0 || done || err != nil || s.Need() <= 7 {
		t.Fatalf("partial reply: %d, %v, %v, need %d", n, done, err, s.Need())
	}
	if _, done, err := s.Decode(full, vars, &r); !done || err != nil || r.Status != driver.Unstored ||
		r.Err.Error() != "\\gset cannot store a map reply" {
		t.Fatalf("map reply: done %v, %v, status %d, %v", done, err, r.Status, r.Err)
	}
	if _, _, err := s.Decode([]byte("+OK\r\n"), vars, &r); err == nil {
		t.Fatal("a reply with no command pending was accepted")
	}
}

// TestSessionAllocatesNothing: a GET and its reply, once buffers grew.
func TestSessionAllocatesNothing(t *testing.T) {
	p := sessionProgram(t, "\\set k random(1, 100)\n\\resp GET item::k\n\\gset\n\\set z :reply\n")
	s := NewSession()
	vars := script.NewVars(p.Syms)
	vars.SetInt(p.Syms.Slot("k"), 7)
	in := []byte("$3\r\nabc\r\n")
	var out []byte
	var r driver.Reply
	round := func() {
		out, _ = s.Encode(out[:0], p.Scripts[0].Commands[1], 1, vars)
		if _, done, _ := s.Decode(in, vars, &r); !done || r.Status != driver.OK {
			t.Fatal("no reply")
		}
	}
	round()
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Errorf("%v allocations per command", n)
	}
}
