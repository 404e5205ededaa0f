package pgsql

import (
	"github.com/gbench/gbench/script"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Session is the protocol state of one PostgreSQL connection that is driven
// without blocking: it appends requests to an output buffer and decodes
// replies from an input buffer, and does no I/O itself. A request is
// everything up to a Sync (or a simple Query); its reply ends with
// ReadyForQuery. Requests may be queued ahead of their replies (pipelining).
//
// A Session belongs to one client and one connection; it is not safe for
// concurrent use. It allocates nothing in steady state.
type Session struct {
	mode     script.Mode
	prepared []bool // by script.SQL.ID
	parsing  []bool // by script.SQL.ID: its Parse is in a request not yet answered
	tx       byte
	pipeline bool

	queue []*script.Command // one entry per pending request; nil: no results to store
	head  int

	enc encoder
	dec decoder

	// Notice, when set, receives server notices (NOTICE, WARNING, ...).
	Notice func(severity, message string)
}

// NewSession returns the session of a freshly connected server connection
// for a program with numSQL SQL commands. txStatus is the status of the
// connection's last ReadyForQuery ('I' after connecting).
func NewSession(mode script.Mode, numSQL int, txStatus byte) *Session {
	return &Session{mode: mode, prepared: make([]bool, numSQL), parsing: make([]bool, numSQL), tx: txStatus}
}

// TxStatus returns the transaction status of the last ReadyForQuery: 'I'
// idle, 'T' in a transaction block, 'E' in a failed transaction block.
func (s *Session) TxStatus() byte { return s.tx }

// InPipeline reports whether the session is in pipeline mode.
func (s *Session) InPipeline() bool { return s.pipeline }

// SetPipeline enters or leaves pipeline mode. In pipeline mode Query does
// not end requests with a Sync; Sync does.
func (s *Session) SetPipeline(on bool) { s.pipeline = on }

// Pending returns the number of requests whose reply has not been decoded.
func (s *Session) Pending() int { return len(s.queue) - s.head }

func (s *Session) push(cmd *script.Command) {
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
	}
	s.queue = append(s.queue, cmd)
}

func (s *Session) pop() *script.Command {
	cmd := s.queue[s.head]
	s.queue[s.head] = nil
	s.head++
	return cmd
}

// Query appends the request for an SQL command in the session's query mode,
// substituting or binding the client's variables; in prepared mode a
// statement not yet prepared on this connection is parsed first, in the
// same request. Outside pipeline mode the request ends with a Sync.
func (s *Session) Query(out []byte, cmd *script.Command, vars *script.Vars) []byte {
	q := cmd.SQL
	switch s.mode {
	case script.Simple:
		out = s.enc.simple(out, q, vars)
		s.push(cmd)
		return out
	case script.Prepared:
		if !s.prepared[q.ID] {
			out = s.enc.parse(out, q.PrepName, q, vars)
			// In a pipeline the reply is matched to its Sync, not to cmd.
			s.prepared[q.ID], s.parsing[q.ID] = true, !s.pipeline
		}
		out = s.enc.bind(out, q.PrepName, q, vars)
	default:
		out = s.enc.parse(out, "", q, vars)
		out = s.enc.bind(out, "", q, vars)
	}
	if cmd.GSet != script.NoGSet {
		out = s.enc.describePortal(out)
	}
	out = s.enc.execute(out)
	if s.pipeline {
		return out
	}
	out = s.enc.sync(out)
	s.push(cmd)
	return out
}

// Prepare appends a request that prepares, in prepared mode, those SQL
// commands among cmds not yet prepared on this connection, like pgbench does
// before a pipeline. It reports whether it appended anything.
func (s *Session) Prepare(out []byte, cmds []*script.Command, vars *script.Vars) ([]byte, bool) {
	if s.mode != script.Prepared {
		return out, false
	}
	n := len(out)
	for _, c := range cmds {
		if c.Kind == script.CmdSQL && !s.prepared[c.SQL.ID] {
			out = s.enc.parse(out, c.SQL.PrepName, c.SQL, vars)
			s.prepared[c.SQL.ID] = true
		}
	}
	if len(out) == n {
		return out, false
	}
	out = s.enc.sync(out)
	s.push(nil)
	return out, true
}

// Sync appends a Sync, which ends a pipeline request.
func (s *Session) Sync(out []byte) []byte {
	s.push(nil)
	return s.enc.sync(out)
}

// Rollback appends a ROLLBACK request.
func (s *Session) Rollback(out []byte) []byte {
	s.push(nil)
	return s.enc.query(out, "ROLLBACK")
}

// Reply is the outcome of one request.
type Reply struct {
	// Err is the first error the server reported, nil if none.
	Err *Error
	// Results counts statement results (CommandComplete, EmptyQueryResponse).
	Results int
	// Store is set when \gset or \aset could not store results; the client
	// must abort, as pgbench does.
	Store error
	// Copy is set when the server started a COPY, which scripts cannot do.
	Copy bool
}

// Receive decodes replies from in and reports how many bytes it consumed
// and whether a request completed, in which case r holds its reply and the
// bytes after it are left for the next call. Results of a command with
// \gset or \aset are stored into vars. A non-nil error means the stream is
// broken and the connection must be closed.
func (s *Session) Receive(in []byte, vars *script.Vars, r *Reply) (n int, done bool, err error) {
	for {
		typ, body, size, err := frame(in[n:])
		if err != nil || size == 0 {
			return n, false, err
		}
		n += size
		if s.Pending() == 0 {
			if typ == 'N' || typ == 'S' || typ == 'A' {
				s.dec.async(typ, body, s.Notice)
				continue
			}
			return n, false, protocolErrorf("unexpected message %q with no request pending", typ)
		}
		cmd := s.queue[s.head]
		fin, err := s.dec.message(typ, body, cmd, vars, s.Notice)
		if err != nil {
			return n, false, err
		}
		if fin {
			s.tx = s.dec.tx
			s.pop()
			parseFailed := s.parseFailed(cmd)
			s.dec.finish(cmd, vars, r)
			switch {
			case r.Err != nil && cmd != nil && cmd.Kind == script.CmdSQL:
				s.explain(r.Err, cmd.SQL, vars, parseFailed)
			case r.Err != nil:
				// A pipeline's request: each of its statements is a
				// query of its own, as pgbench counts them.
				r.Err.Index = 0
			}
			return n, true, nil
		}
	}
}

// explain adds to an error of an SQL command what pgbench's libpq knows:
// the statement text (for the LINE display of a position) and, when the
// request's Parse failed, the statement that therefore does not exist. The
// simple mode's text is substituted again from the variables, which the
// failed request did not change. Only the error path allocates.
func (s *Session) explain(e *Error, q *script.SQL, vars *script.Vars, parseFailed bool) {
	switch {
	case s.mode == script.Simple:
		e.Query = string(q.AppendSimple(nil, vars))
	case s.mode == script.Extended || parseFailed:
		e.Query = q.Query
	}
	if parseFailed {
		e.Unprepared = q.PrepName
	}
}

// parseFailed reports, at the end of cmd's reply, whether the request
// carried cmd's Parse and the server rejected it; the statement is then
// not prepared on this connection.
func (s *Session) parseFailed(cmd *script.Command) bool {
	if cmd == nil || cmd.Kind != script.CmdSQL || s.mode != script.Prepared || !s.parsing[cmd.SQL.ID] {
		return false
	}
	s.parsing[cmd.SQL.ID] = false
	if s.dec.err == nil || s.dec.parsed {
		return false
	}
	s.prepared[cmd.SQL.ID] = false
	return true
}

// NeedCopyFail reports whether the server started a COPY FROM STDIN and
// waits for data; the caller must send CopyFail to end it.
func (s *Session) NeedCopyFail() bool { return s.dec.copyIn }

// CopyFail appends the message that ends a COPY FROM STDIN.
func (s *Session) CopyFail(out []byte) []byte {
	s.dec.copyIn = false
	m := pgproto3.CopyFail{Message: "COPY is not supported in gbench scripts"}
	out, _ = m.Encode(out)
	return out
}
