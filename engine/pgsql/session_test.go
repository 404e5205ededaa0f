package pgsql

import (
	"errors"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
	"github.com/jackc/pgx/v5/pgproto3"
)

// program compiles a one-script program.
func program(t *testing.T, src string, mode script.Mode) *script.Program {
	t.Helper()
	s, err := script.Parse("t.sql", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := script.Compile([]*script.Script{s}, mode, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// backend encodes server messages.
func backend(t *testing.T, msgs ...pgproto3.BackendMessage) []byte {
	t.Helper()
	var b []byte
	for _, m := range msgs {
		var err error
		if b, err = m.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

var ready = &pgproto3.ReadyForQuery{TxStatus: 'I'}

// TestSessionReplies decodes canned server replies to one SQL command and
// checks what the driver reports, fed whole and one byte at a time.
func TestSessionReplies(t *testing.T) {
	one := func(v string) []pgproto3.BackendMessage {
		return []pgproto3.BackendMessage{
			&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("a")}}},
			&pgproto3.DataRow{Values: [][]byte{[]byte(v)}},
		}
	}
	done := &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}
	tests := []struct {
		name, src string
		msgs      []pgproto3.BackendMessage
		status    driver.Status
		err       string
		a         string // :a after the reply, when stored
	}{
		// a plain result
		{"ok", "SELECT 1;\n", append(one("1"), done, ready), driver.OK, "", ""},
		// \gset stores the row
		{"gset", "SELECT 7 AS a \\gset\n\\set b :a\n", append(one("7"), done, ready), driver.OK, "", "7"},
		// \gset needs exactly one row
		{"gset two rows", "SELECT a \\gset\n", append(append(one("1"), &pgproto3.DataRow{Values: [][]byte{[]byte("2")}}), &pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")}, ready),
			driver.Unstored, "query 0: expected one row, got 2", ""},
		// the SQLSTATEs pgbench retries
		{"serialization", "SELECT 1;\n", []pgproto3.BackendMessage{&pgproto3.ErrorResponse{Severity: "ERROR", Code: "40001", Message: "could not serialize access"}, ready},
			driver.Serialization, "ERROR:  could not serialize access", ""},
		{"deadlock", "SELECT 1;\n", []pgproto3.BackendMessage{&pgproto3.ErrorResponse{Severity: "ERROR", Code: "40P01", Message: "deadlock detected"}, ready},
			driver.Deadlock, "ERROR:  deadlock detected", ""},
		// any other error aborts the client
		{"error", "SELECT 1/0;\n", []pgproto3.BackendMessage{&pgproto3.ErrorResponse{Severity: "ERROR", Code: "22012", Message: "division by zero", Hint: "h"}, ready},
			driver.Error, "ERROR:  division by zero\nHINT:  h", ""},
		// COPY ends the reply at once: the client aborts
		{"copy", "COPY t FROM STDIN;\n", []pgproto3.BackendMessage{&pgproto3.CopyInResponse{}},
			driver.Unsupported, "COPY is not supported in gbench, aborting", ""},
	}
	for _, tt := range tests {
		for _, bytewise := range []bool{false, true} {
			p := program(t, tt.src, script.Extended)
			s := NewSession(p.Mode, p.NumSQL, 'I')
			vars := script.NewVars(p.Syms)
			out, err := s.Encode(nil, p.Scripts[0].Commands[0], 3, vars)
			if err != nil || len(out) == 0 || s.Pending() != 1 {
				t.Fatalf("%s: Encode: %v, %d bytes, %d pending", tt.name, err, len(out), s.Pending())
			}
			in := backend(t, tt.msgs...)
			var r driver.Reply
			n, ok := decodeAll(t, s, in, vars, &r, bytewise)
			if !ok || n != len(in) || s.Pending() != 0 {
				t.Fatalf("%s (bytewise %v): done %v after %d of %d bytes, %d pending", tt.name, bytewise, ok, n, len(in), s.Pending())
			}
			errText := ""
			if r.Err != nil {
				errText = r.Err.Error()
			}
			if r.Status != tt.status || errText != tt.err || r.Tag != 3 {
				t.Errorf("%s: status %d, err %q, tag %d; want %d, %q, 3", tt.name, r.Status, errText, r.Tag, tt.status, tt.err)
			}
			if tt.a != "" {
				slot, _ := p.Syms.Lookup([]byte("a"))
				if got, _ := vars.AppendText(nil, slot); string(got) != tt.a {
					t.Errorf("%s: :a = %q, want %q", tt.name, got, tt.a)
				}
			}
		}
	}
}

// decodeAll feeds in to Decode whole, or growing one byte at a time as a
// socket might deliver it, until a reply completes.
func decodeAll(t *testing.T, s *Session, in []byte, vars *script.Vars, r *driver.Reply, bytewise bool) (int, bool) {
	t.Helper()
	off := 0
	for end := 1; end <= len(in); end++ {
		if !bytewise {
			end = len(in)
		}
		n, done, err := s.Decode(in[off:end], vars, r)
		if err != nil {
			t.Fatal(err)
		}
		off += n
		if done {
			return off, true
		}
		if need := s.Need(); need <= end-off {
			t.Fatalf("Need() = %d with %d bytes undecoded", need, end-off)
		}
	}
	return off, false
}

// TestSessionPipeline: pipelined commands join the group a Sync ends, and
// \gset is refused in a pipeline as pgbench refuses it; the simple
// protocol cannot pipeline.
func TestSessionPipeline(t *testing.T) {
	p := program(t, "\\startpipeline\nSELECT 1;\nSELECT 2 AS a \\gset\n\\endpipeline\n", script.Prepared)
	s := NewSession(p.Mode, p.NumSQL, 'I')
	vars := script.NewVars(p.Syms)
	cmds := p.Scripts[0].Commands
	out, sent := s.Prepare(nil, cmds[1:3], vars)
	if !sent || s.Pending() != 1 {
		t.Fatalf("Prepare sent %v, %d pending", sent, s.Pending())
	}
	if err := s.StartPipeline(cmds[1:3]); err != nil {
		t.Fatal(err)
	}
	if out, _ = s.Encode(out, cmds[1], 1, vars); s.Pending() != 1 {
		t.Fatalf("a pipelined command is its own request: %d pending", s.Pending())
	}
	_, err := s.Encode(out, cmds[2], 2, vars)
	var ce *driver.CommandError
	if !errors.As(err, &ce) || ce.What != "gset" || ce.Msg != "\\gset is not allowed in pipeline mode" {
		t.Fatalf("\\gset in a pipeline: %v", err)
	}
	s.Sync(out)
	if s.Pending() != 2 {
		t.Fatalf("after Sync: %d pending, want 2", s.Pending())
	}
	s.EndPipeline()

	simple := program(t, "\\startpipeline\nSELECT 1;\n\\endpipeline\n", script.Simple)
	ss := NewSession(simple.Mode, simple.NumSQL, 'I')
	err = ss.StartPipeline(simple.Scripts[0].Commands[1:2])
	if err == nil || !strings.Contains(err.Error(), "simple query protocol") {
		t.Fatalf("simple protocol pipeline: %v", err)
	}
}

// TestSessionTransaction: the transaction status follows ReadyForQuery,
// and Rollback is a request of the session's own (tag -1).
func TestSessionTransaction(t *testing.T) {
	p := program(t, "BEGIN;\n", script.Simple)
	s := NewSession(p.Mode, p.NumSQL, 'I')
	vars := script.NewVars(p.Syms)
	s.Encode(nil, p.Scripts[0].Commands[0], 0, vars)
	var r driver.Reply
	in := backend(t, &pgproto3.CommandComplete{CommandTag: []byte("BEGIN")}, &pgproto3.ReadyForQuery{TxStatus: 'T'})
	if _, done, err := s.Decode(in, vars, &r); !done || err != nil || !s.InTransaction() {
		t.Fatalf("BEGIN: done %v, err %v, in transaction %v", done, err, s.InTransaction())
	}
	s.Rollback(nil)
	in = backend(t, &pgproto3.CommandComplete{CommandTag: []byte("ROLLBACK")}, ready)
	if _, done, err := s.Decode(in, vars, &r); !done || err != nil || s.InTransaction() || r.Tag != -1 {
		t.Fatalf("ROLLBACK: done %v, err %v, in transaction %v, tag %d", done, err, s.InTransaction(), r.Tag)
	}
}

// TestSessionAllocatesNothing: encoding a prepared command and decoding
// its reply allocate nothing once the buffers have grown.
func TestSessionAllocatesNothing(t *testing.T) {
	p := program(t, "\\set aid random(1, 1000)\nSELECT abalance AS a FROM t WHERE aid = :aid \\gset\n\\set b :a\n", script.Prepared)
	s := NewSession(p.Mode, p.NumSQL, 'I')
	vars := script.NewVars(p.Syms)
	slot, _ := p.Syms.Lookup([]byte("aid"))
	vars.SetInt(slot, 42)
	cmd := p.Scripts[0].Commands[1]
	in := backend(t,
		&pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("a")}}},
		&pgproto3.DataRow{Values: [][]byte{[]byte("-5")}},
		&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, ready)
	var out []byte
	var r driver.Reply
	round := func() {
		out, _ = s.Encode(out[:0], cmd, 1, vars)
		if _, done, _ := s.Decode(in, vars, &r); !done || r.Status != driver.OK {
			t.Fatalf("reply: done %v, status %d, %v", done, r.Status, r.Err)
		}
	}
	round()
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Errorf("%v allocations per command", n)
	}
}

// TestSessionCountsRows: under CountRows (RowsConnector) a SELECT's reply is
// a hit with rows and a miss without, whether or not a row description
// came (the prepared mode's replies have none); other commands and failed
// ones count neither; without CountRows nothing counts.
func TestSessionCountsRows(t *testing.T) {
	row := &pgproto3.DataRow{Values: [][]byte{[]byte("v")}}
	sel := func(n string) *pgproto3.CommandComplete {
		return &pgproto3.CommandComplete{CommandTag: []byte("SELECT " + n)}
	}
	rd := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("v")}}}
	tests := []struct {
		name         string
		msgs         []pgproto3.BackendMessage
		hits, misses int32
	}{
		{"hit", []pgproto3.BackendMessage{row, sel("1"), ready}, 1, 0},
		{"miss", []pgproto3.BackendMessage{sel("0"), ready}, 0, 1},
		{"hit with a description", []pgproto3.BackendMessage{rd, row, sel("1"), ready}, 1, 0},
		{"miss with a description", []pgproto3.BackendMessage{rd, sel("0"), ready}, 0, 1},
		{"upsert", []pgproto3.BackendMessage{&pgproto3.CommandComplete{CommandTag: []byte("INSERT 0 1")}, ready}, 0, 0},
		{"error", []pgproto3.BackendMessage{&pgproto3.ErrorResponse{Severity: "ERROR", Code: "22012", Message: "x"}, ready}, 0, 0},
	}
	for _, count := range []bool{true, false} {
		for _, tt := range tests {
			p := program(t, "SELECT v FROM t WHERE k = 1;\n", script.Prepared)
			s := NewSession(p.Mode, p.NumSQL, 'I')
			s.CountRows(count)
			vars := script.NewVars(p.Syms)
			if _, err := s.Encode(nil, p.Scripts[0].Commands[0], 0, vars); err != nil {
				t.Fatal(err)
			}
			// The prepared mode first prepares: answer the Parse.
			in := backend(t, append([]pgproto3.BackendMessage{&pgproto3.ParseComplete{}, &pgproto3.BindComplete{}}, tt.msgs...)...)
			var r driver.Reply
			for off := 0; off < len(in); {
				n, done, err := s.Decode(in[off:], vars, &r)
				if err != nil {
					t.Fatal(err)
				}
				off += n
				if done && s.Pending() == 0 {
					break
				}
			}
			want := [2]int32{tt.hits, tt.misses}
			if !count {
				want = [2]int32{}
			}
			if got := [2]int32{r.Cache.Hits, r.Cache.Misses}; got != want {
				t.Errorf("%s (CountRows %v): hits, misses %v, want %v", tt.name, count, got, want)
			}
		}
	}
}
