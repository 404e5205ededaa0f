package pgsql

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
	"github.com/jackc/pgx/v5/pgproto3"
)

// maxMessage bounds the size of one backend message (PostgreSQL's own
// limit for a field is 1 GB).
const maxMessage = 1 << 30

// ProtocolError means the server sent something that is not valid protocol;
// the connection cannot be used any more.
type ProtocolError struct{ msg string }

func (e *ProtocolError) Error() string { return "protocol error: " + e.msg }

func protocolErrorf(format string, args ...any) error {
	return &ProtocolError{msg: fmt.Sprintf(format, args...)}
}

// frame splits the first message off in: type, body and total size. A size
// of 0 with a nil error means the message is not complete yet.
func frame(in []byte) (typ byte, body []byte, size int, err error) {
	if len(in) < 5 {
		return 0, nil, 0, nil
	}
	n := binary.BigEndian.Uint32(in[1:5])
	if n < 4 || n > maxMessage {
		return 0, nil, 0, protocolErrorf("invalid message length %d for message %q", n, in[0])
	}
	size = 1 + int(n)
	if len(in) < size {
		return 0, nil, 0, nil
	}
	return in[0], in[5:size], size, nil
}

// messageSize returns the size of the message starting in, when its header
// is complete, so that a reader can make room for all of it at once.
func messageSize(in []byte) int {
	if len(in) < 5 {
		return 5
	}
	return 1 + int(binary.BigEndian.Uint32(in[1:5]))
}

// Error is an error reported by the server.
type Error struct {
	Severity         string
	Code             string // SQLSTATE
	Message          string
	Detail           string
	Hint             string
	Position         int // 1-based character in Query, 0 for none
	InternalQuery    string
	InternalPosition int    // 1-based character in InternalQuery, 0 for none
	Where            string // the context
	// Query is the statement as libpq would know it when the error came:
	// the text sent in simple and extended mode, none when a prepared
	// statement ran. Error shows Position in it.
	Query string
	// Index is the query of a compound command (\;) the error is about,
	// counted from 0.
	Index int
	// Unprepared names the prepared statement whose Parse this error
	// rejected, in the request that was also to run it: the statement does
	// not exist. "" otherwise.
	Unprepared string
}

// Error returns the message as libpq's default verbosity prints it:
// "SEVERITY:  text", the statement's line with a caret under the position
// (or " at character N" without the statement), then the DETAIL, HINT,
// QUERY and CONTEXT lines that are present.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:  %s", e.Severity, e.Message)
	query, pos := e.Query, e.Position
	if pos == 0 {
		query, pos = e.InternalQuery, e.InternalPosition
	}
	if pos > 0 && query == "" {
		fmt.Fprintf(&b, " at character %d", pos)
	}
	b.WriteByte('\n')
	if pos > 0 && query != "" {
		appendErrorPosition(&b, query, pos)
	}
	for _, f := range [...]struct{ name, value string }{
		{"DETAIL", e.Detail}, {"HINT", e.Hint}, {"QUERY", e.InternalQuery}, {"CONTEXT", e.Where},
	} {
		if f.value != "" {
			fmt.Fprintf(&b, "%s:  %s\n", f.name, f.value)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Serialization and deadlock errors are the ones pgbench retries.
const (
	CodeSerializationFailure = "40001"
	CodeDeadlockDetected     = "40P01"
)

// status classes the error as pgbench does: serialization and deadlock
// failures may be retried, anything else aborts the client.
func (e *Error) status() driver.Status {
	switch e.Code {
	case CodeSerializationFailure:
		return driver.Serialization
	case CodeDeadlockDetected:
		return driver.Deadlock
	}
	return driver.Error
}

// decoder tracks the reply to the request being received.
type decoder struct {
	tx      byte
	results int
	err     *Error
	copy    bool // the server started a COPY
	lost    bool // a FATAL error ended the session

	parsed bool // a ParseComplete came

	tuples bool // the current result has a row description
	rows   int

	lastTuples bool // about the last completed result
	lastRows   int
	// countRows (Session.CountRows) makes the decoder note whether the
	// last result was a SELECT's: the extended and prepared modes' replies
	// carry no row description, only the command tag says so.
	countRows  bool
	lastSelect bool
	store      error

	rd       pgproto3.RowDescription
	row      pgproto3.DataRow
	names    []byte // field names of the current result, for \gset
	nameEnds []int
	vals     []byte // the current result's last row
	valEnds  []int
	nulls    []bool
	key      []byte
}

// message handles one message of the current request; fin is true at its
// ReadyForQuery.
func (d *decoder) message(typ byte, body []byte, cmd *script.Command, vars *script.Vars, notice func(string, string)) (fin bool, err error) {
	gset := cmd != nil && cmd.GSet != script.NoGSet
	switch typ {
	case 'T':
		d.tuples = true
		if gset {
			return false, d.rowDescription(body)
		}
	case 'D':
		d.rows++
		if gset {
			return false, d.dataRow(body)
		}
	case 'C', 'I':
		if d.countRows {
			d.lastSelect = typ == 'C' && len(body) > 7 && string(body[:7]) == "SELECT "
		}
		d.endResult(cmd, vars)
	case '1':
		d.parsed = true
	case 'E':
		e := decodeError(body)
		if d.err == nil {
			d.err = e
			d.err.Index = d.results
		}
		if e.Severity == "FATAL" || e.Severity == "PANIC" {
			// The server closes the connection after it: no
			// ReadyForQuery will end the reply (libpq reports the error
			// as the command's result, and pgbench aborts with it).
			d.lost = true
			return true, nil
		}
	case 'Z':
		if len(body) != 1 {
			return false, protocolErrorf("invalid ReadyForQuery")
		}
		d.tx = body[0]
		return true, nil
	case 'G', 'H', 'W':
		// The reply ends here: the client aborts and closes the
		// connection, which ends the COPY on the server.
		d.copy = true
		return true, nil
	case 'N', 'S', 'A':
		d.async(typ, body, notice)
	}
	return false, nil
}

// async handles messages that may come at any time.
func (d *decoder) async(typ byte, body []byte, notice func(string, string)) {
	if typ != 'N' || notice == nil {
		return
	}
	e := decodeError(body)
	notice(e.Severity, e.Message)
}

func (d *decoder) rowDescription(body []byte) error {
	if err := d.rd.Decode(body); err != nil {
		return protocolErrorf("%v", err)
	}
	d.names, d.nameEnds = d.names[:0], d.nameEnds[:0]
	for _, f := range d.rd.Fields {
		d.names = append(d.names, f.Name...)
		d.nameEnds = append(d.nameEnds, len(d.names))
	}
	return nil
}

func (d *decoder) dataRow(body []byte) error {
	if err := d.row.Decode(body); err != nil {
		return protocolErrorf("%v", err)
	}
	d.vals, d.valEnds, d.nulls = d.vals[:0], d.valEnds[:0], d.nulls[:0]
	for _, v := range d.row.Values {
		d.vals = append(d.vals, v...)
		d.valEnds = append(d.valEnds, len(d.vals))
		d.nulls = append(d.nulls, v == nil)
	}
	return nil
}

// endResult closes a statement result; \aset stores every result's last row.
func (d *decoder) endResult(cmd *script.Command, vars *script.Vars) {
	d.results++
	d.lastTuples, d.lastRows = d.tuples, d.rows
	if cmd != nil && cmd.GSet == script.ASet && d.tuples && d.rows > 0 && d.store == nil && d.err == nil {
		d.store = d.storeRow(cmd, vars)
	}
	d.tuples, d.rows = false, 0
}

// finish completes the request's reply and resets the decoder.
func (d *decoder) finish(cmd *script.Command, vars *script.Vars, r *driver.Reply) {
	*r = driver.Reply{}
	store := d.store
	switch {
	case d.copy:
		r.Status, r.Err = driver.Unsupported, errCopy
		store = nil
	case d.err != nil:
		r.Status, r.Err, r.Query = d.err.status(), d.err, d.err.Index
		store = nil
	case cmd == nil:
	case store != nil:
	case d.results == 0:
		store = errNoResults
	case cmd.GSet == script.GSet && !d.lastTuples:
		store = fmt.Errorf("query %d: expected one row, got 0", d.results-1)
	case cmd.GSet == script.GSet && d.lastRows != 1:
		store = fmt.Errorf("query %d: expected one row, got %d", d.results-1, d.lastRows)
	case cmd.GSet == script.GSet:
		store = d.storeRow(cmd, vars)
	}
	if store != nil {
		r.Status, r.Err = driver.Unstored, store
		if se, ok := store.(*StoreError); ok {
			r.Note = se.Reason()
		}
	}
	r.Lost = d.lost
	d.results, d.err, d.copy, d.store, d.parsed, d.lost = 0, nil, false, nil, false, false
	d.tuples, d.rows, d.lastTuples, d.lastRows = false, 0, false, 0
}

var (
	errCopy      = errors.New("COPY is not supported in gbench, aborting")
	errNoResults = errors.New("no results")
)

// storeRow stores the last row into variables named prefix + column name.
// A NULL is stored as an empty string, as pgbench does.
func (d *decoder) storeRow(cmd *script.Command, vars *script.Vars) error {
	syms := vars.Symbols()
	nameStart, valStart := 0, 0
	for i, end := range d.nameEnds {
		d.key = append(append(d.key[:0], cmd.Prefix...), d.names[nameStart:end]...)
		nameStart = end
		var val []byte
		if i < len(d.valEnds) {
			val = d.vals[valStart:d.valEnds[i]]
			valStart = d.valEnds[i]
		}
		if !script.ValidVarName(d.key) {
			return &StoreError{Cmd: cmd.GSetName(), Query: d.results - 1, Name: string(d.key)}
		}
		if slot, ok := syms.Lookup(d.key); ok {
			vars.SetText(slot, val)
		}
	}
	return nil
}

// StoreError is a column that \gset or \aset cannot store, its name (with
// the prefix) not being a valid variable name.
type StoreError struct {
	Cmd   string // "gset" or "aset"
	Query int    // the query's index in the command
	Name  string
}

// Error reads "query N: error storing into variable NAME", the words of
// pgbench's abort message; Reason gives its other message.
func (e *StoreError) Error() string {
	return fmt.Sprintf("query %d: error storing into variable %s", e.Query, e.Name)
}

// Reason is why the column cannot be stored, as pgbench says it first:
// `gset: invalid variable name: "?column?"`.
func (e *StoreError) Reason() string {
	return fmt.Sprintf("%s: invalid variable name: \"%s\"", e.Cmd, e.Name)
}

// decodeError converts an ErrorResponse or NoticeResponse body.
func decodeError(body []byte) *Error {
	var m pgproto3.ErrorResponse
	if err := m.Decode(body); err != nil {
		return &Error{Severity: "ERROR", Message: "malformed error message from server"}
	}
	sev := m.SeverityUnlocalized
	if sev == "" {
		sev = m.Severity
	}
	return &Error{Severity: sev, Code: m.Code, Message: m.Message, Detail: m.Detail, Hint: m.Hint,
		Position: int(m.Position), InternalQuery: m.InternalQuery, InternalPosition: int(m.InternalPosition), Where: m.Where}
}
