package pgsql

import (
	"errors"
	"fmt"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// Session is the protocol state of one PostgreSQL connection that is driven
// without blocking: the engine's driver.Driver for SQL commands. It appends
// requests to an output buffer and decodes replies from an input buffer,
// and does no I/O itself. A request is everything up to a Sync (or a simple
// Query); its reply ends with ReadyForQuery. Requests may be queued ahead of
// their replies (pipelining).
//
// A Session belongs to one client and one connection; it is not safe for
// concurrent use. It allocates nothing in steady state.
type Session struct {
	mode     script.Mode
	prepared []bool // by script.SQL.ID
	parsing  []bool // by script.SQL.ID: its Parse is in a request not yet answered
	tx       byte
	pipeline bool

	queue []request // one entry per pending request
	head  int
	need  int

	enc encoder
	dec decoder

	// Notice, when set, receives server notices (NOTICE, WARNING, ...).
	Notice func(severity, message string)
}

// CountRows makes each reply of an SQL command whose last result is a
// SELECT's (its command tag) count in driver.Cache as a hit when it
// returned a row and as a miss when it returned none: a cache get's hit
// rate (RowsConnector; the matrix's samples record it).
func (s *Session) CountRows(on bool) { s.dec.countRows = on }

// request is a request whose reply is awaited: cmd is nil for the
// session's own requests (Sync, Prepare, Rollback), which store nothing.
type request struct {
	cmd *script.Command
	tag int
}

var (
	_ driver.Driver        = (*Session)(nil)
	_ driver.Pipeliner     = (*Session)(nil)
	_ driver.Preparer      = (*Session)(nil)
	_ driver.Transactional = (*Session)(nil)
	_ driver.Describer     = (*Session)(nil)
)

// NewSession returns the session of a freshly connected server connection
// for a program with numSQL SQL commands. txStatus is the status of the
// connection's last ReadyForQuery ('I' after connecting).
func NewSession(mode script.Mode, numSQL int, txStatus byte) *Session {
	return &Session{mode: mode, prepared: make([]bool, numSQL), parsing: make([]bool, numSQL), tx: txStatus}
}

// Name is "SQL", as pgbench's messages name SQL commands.
func (s *Session) Name() string { return "SQL" }

// TxStatus returns the transaction status of the last ReadyForQuery: 'I'
// idle, 'T' in a transaction block, 'E' in a failed transaction block.
func (s *Session) TxStatus() byte { return s.tx }

// InTransaction reports whether the last ReadyForQuery left a transaction
// block open.
func (s *Session) InTransaction() bool { return s.tx != 'I' }

// Pending returns the number of requests whose reply has not been decoded.
func (s *Session) Pending() int { return len(s.queue) - s.head }

// Need returns the size of the message the last Decode stopped in.
func (s *Session) Need() int { return s.need }

func (s *Session) push(cmd *script.Command, tag int) {
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
	}
	s.queue = append(s.queue, request{cmd: cmd, tag: tag})
}

func (s *Session) pop() request {
	r := s.queue[s.head]
	s.queue[s.head] = request{}
	s.head++
	return r
}

// Encode appends the request for an SQL command in the session's query
// mode, substituting or binding the client's variables; in prepared mode a
// statement not yet prepared on this connection is parsed first, in the
// same request. Outside pipeline mode the request ends with a Sync; inside,
// the command joins the group the next Sync ends, and \gset or \aset is
// refused as pgbench refuses it.
func (s *Session) Encode(out []byte, cmd *script.Command, tag int, vars *script.Vars) ([]byte, error) {
	if s.pipeline && cmd.GSet != script.NoGSet {
		name := cmd.GSetName()
		return out, &driver.CommandError{What: name, Msg: "\\" + name + " is not allowed in pipeline mode"}
	}
	q := cmd.SQL
	switch s.mode {
	case script.Simple:
		out = s.enc.simple(out, q, vars)
		s.push(cmd, tag)
		return out, nil
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
		return out, nil
	}
	s.push(cmd, tag)
	return s.enc.sync(out), nil
}

// Describe appends what --debug shows of an SQL command: the query with
// variables substituted (simple), the query (extended) or the prepared
// statement's name, as pgbench does.
func (s *Session) Describe(dst []byte, cmd *script.Command, vars *script.Vars) []byte {
	switch s.mode {
	case script.Simple:
		return cmd.SQL.AppendSimple(dst, vars)
	case script.Extended:
		return append(dst, cmd.SQL.Query...)
	}
	return append(dst, cmd.SQL.PrepName...)
}

// StartPipeline enters pipeline mode; the simple query protocol cannot
// pipeline, as in pgbench.
func (s *Session) StartPipeline(block []*script.Command) error {
	if s.mode == script.Simple {
		for _, c := range block {
			if c.Kind == script.CmdSQL {
				return errors.New("cannot use pipeline mode with the simple query protocol")
			}
		}
	}
	s.pipeline = true
	return nil
}

// EndPipeline leaves pipeline mode.
func (s *Session) EndPipeline() { s.pipeline = false }

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
	s.push(nil, -1)
	return out, true
}

// Sync appends a Sync, which ends a group of pipelined commands.
func (s *Session) Sync(out []byte) []byte {
	s.push(nil, -1)
	return s.enc.sync(out)
}

// Rollback appends a ROLLBACK request.
func (s *Session) Rollback(out []byte) []byte {
	s.push(nil, -1)
	return s.enc.query(out, "ROLLBACK")
}

// Decode decodes replies from in: see driver.Driver. A reply ends at
// ReadyForQuery, or at the start of a COPY, which scripts cannot do (the
// client aborts and closes the connection, as pgbench does).
func (s *Session) Decode(in []byte, vars *script.Vars, r *driver.Reply) (n int, done bool, err error) {
	for {
		typ, body, size, err := frame(in[n:])
		if err != nil {
			return n, false, err
		}
		if size == 0 {
			s.need = messageSize(in[n:])
			return n, false, nil
		}
		n += size
		if s.Pending() == 0 {
			if typ == 'N' || typ == 'S' || typ == 'A' {
				s.dec.async(typ, body, s.Notice)
				continue
			}
			return n, false, protocolErrorf("unexpected message %q with no request pending", typ)
		}
		req := s.queue[s.head]
		fin, err := s.dec.message(typ, body, req.cmd, vars, s.Notice)
		if err != nil {
			return n, false, err
		}
		if fin {
			s.tx = s.dec.tx
			s.pop()
			s.finish(req, vars, r)
			s.need = 0
			return n, true, nil
		}
	}
}

// finish completes the reply to req. An SQL command's error learns what
// pgbench's libpq knows (see explain); a statement whose Parse failed does
// not exist, and running it is what aborts the client, as in pgbench.
func (s *Session) finish(req request, vars *script.Vars, r *driver.Reply) {
	parseFailed := s.parseFailed(req.cmd)
	if e := s.dec.err; e != nil {
		if req.cmd != nil && req.cmd.Kind == script.CmdSQL {
			s.explain(e, req.cmd.SQL, vars, parseFailed)
		} else {
			// A pipeline's request: each of its statements is a query of
			// its own, as pgbench counts them.
			e.Index = 0
		}
	}
	if s.dec.countRows {
		sel, rows := s.dec.lastSelect, s.dec.lastRows
		s.dec.lastSelect = false
		s.dec.finish(req.cmd, vars, r)
		if sel && r.Status == driver.OK && req.cmd != nil {
			if rows > 0 {
				r.Cache.Hits = 1
			} else {
				r.Cache.Misses = 1
			}
		}
	} else {
		s.dec.finish(req.cmd, vars, r)
	}
	r.Tag = req.tag
	if e, ok := r.Err.(*Error); ok && e.Unprepared != "" {
		r.Status, r.Note = driver.Error, e.Error()
		r.Err = fmt.Errorf("prepared statement \"%s\" does not exist", e.Unprepared)
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
