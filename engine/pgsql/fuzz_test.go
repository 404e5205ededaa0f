package pgsql

import (
	"testing"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
	"github.com/jackc/pgx/v5/pgproto3"
)

// fuzzScripts are the commands FuzzSessionReplies sends before the
// server's bytes: a plain query, \gset and \aset, and a compound command.
// The second command names the variables, so that they have slots.
var fuzzScripts = []string{
	"SELECT 1;\n",
	"SELECT 1 AS a, 2 AS b \\gset\nSELECT :a, :b;\n",
	"SELECT 1 AS a \\aset\nSELECT :a, :b;\n",
	"SELECT 1 \\; SELECT 2 AS b \\gset p_\nSELECT :p_b, :a;\n",
}

// outcome is what decoding a stream came to.
type outcome struct {
	used   int  // bytes consumed
	done   bool // a reply completed
	broken bool // Decode returned an error
	status driver.Status
	err    string
	a, b   string // :a and :b (or :p_b) afterwards
}

// decodeStream feeds in to s in pieces of at most step bytes (0: all at
// once), as reads from a socket would arrive, until a reply completes or
// the stream breaks.
func decodeStream(t *testing.T, p *script.Program, s *Session, vars *script.Vars, in []byte, step int) outcome {
	var o outcome
	var r driver.Reply
	// end is how much has arrived: step more bytes each round.
	for end := 0; end < len(in); {
		if end += step; step == 0 || end > len(in) {
			end = len(in)
		}
		n, done, err := s.Decode(in[o.used:end], vars, &r)
		if n < 0 || o.used+n > end {
			t.Fatalf("Decode consumed %d of %d bytes", n, end-o.used)
		}
		o.used += n
		if err != nil {
			o.broken, o.err = true, err.Error()
			return o
		}
		if done {
			o.done, o.status = true, r.Status
			if r.Err != nil {
				o.err = r.Err.Error()
			}
			break
		}
		if need := s.Need(); need <= end-o.used {
			t.Fatalf("Need() = %d with %d bytes undecoded and no reply", need, end-o.used)
		}
	}
	for _, name := range []string{"a", "b", "p_b"} {
		if slot, ok := p.Syms.Lookup([]byte(name)); ok {
			if text, ok := vars.AppendText(nil, slot); ok {
				if name == "a" {
					o.a = string(text)
				} else {
					o.b = string(text)
				}
			}
		}
	}
	return o
}

// FuzzSessionReplies feeds arbitrary bytes to a Session as the server's
// reply to a command, in each query mode: whatever the server sends, the
// driver never panics, never consumes bytes it was not given, and comes to
// the same outcome (bytes consumed, reply status and error, variables
// stored, or a broken stream) whether the bytes arrive at once or one at
// a time. The first byte of the input picks the script and mode. Seeds
// are canned replies and testdata/fuzz/FuzzSessionReplies.
func FuzzSessionReplies(f *testing.F) {
	enc := func(msgs ...pgproto3.BackendMessage) []byte {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		return b
	}
	rows := &pgproto3.RowDescription{Fields: []pgproto3.FieldDescription{{Name: []byte("a")}, {Name: []byte("b")}}}
	row := &pgproto3.DataRow{Values: [][]byte{[]byte("1"), nil}}
	done := &pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}
	ready := &pgproto3.ReadyForQuery{TxStatus: 'I'}
	for i, msgs := range [][]pgproto3.BackendMessage{
		{rows, row, done, ready},
		{&pgproto3.ParseComplete{}, &pgproto3.BindComplete{}, rows, row, done, ready},
		{&pgproto3.ErrorResponse{Severity: "ERROR", Code: "40001", Message: "m"}, ready},
		{&pgproto3.NoticeResponse{Severity: "NOTICE", Message: "n"}, rows, row, row, done, ready},
		{&pgproto3.CopyInResponse{}},
		{&pgproto3.ParameterStatus{Name: "x", Value: "y"}, rows, done, ready},
	} {
		f.Add(append([]byte{byte(i)}, enc(msgs...)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 1<<16 {
			return
		}
		pick, in := int(data[0]), data[1:]
		modes := []script.Mode{script.Simple, script.Extended, script.Prepared}
		src, mode := fuzzScripts[pick%len(fuzzScripts)], modes[pick/len(fuzzScripts)%len(modes)]
		var outs [2]outcome
		for i, step := range []int{0, 1} {
			s, err := script.Parse("f.sql", src, 1)
			if err != nil {
				t.Fatal(err)
			}
			p, err := script.Compile([]*script.Script{s}, mode, nil)
			if err != nil {
				t.Fatal(err)
			}
			sess := NewSession(p.Mode, p.NumSQL, 'I')
			sess.Notice = func(string, string) {}
			vars := script.NewVars(p.Syms)
			if _, err := sess.Encode(nil, p.Scripts[0].Commands[0], 0, vars); err != nil {
				t.Fatal(err)
			}
			outs[i] = decodeStream(t, p, sess, vars, in, step)
		}
		if outs[0] != outs[1] {
			t.Fatalf("%s in %v: the same bytes decode as\n%+v at once and\n%+v one at a time", src, mode, outs[0], outs[1])
		}
	})
}
