package pgsql

import (
	"encoding/binary"

	"github.com/gbench/gbench/script"
	"github.com/jackc/pgx/v5/pgproto3"
)

// emptyParam is an empty, non-NULL parameter value.
var emptyParam = []byte{}

// int8ArrayOID is the type of list parameters.
const int8ArrayOID = 1016

// encoder builds frontend messages with pgproto3, reusing its message
// structs and buffers so that encoding allocates nothing in steady state.
type encoder struct {
	parseMsg pgproto3.Parse
	bindMsg  pgproto3.Bind
	params   [][]byte
	formats  []int16
	oids     []uint32
	buf      []byte // parameter values
}

// simple appends a Query message with variables substituted.
func (e *encoder) simple(out []byte, q *script.SQL, vars *script.Vars) []byte {
	out = append(out, 'Q', 0, 0, 0, 0)
	start := len(out) - 4
	out = q.AppendSimple(out, vars)
	out = append(out, 0)
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start))
	return out
}

// query appends a Query message for fixed text.
func (e *encoder) query(out []byte, text string) []byte {
	out = append(out, 'Q', 0, 0, 0, 0)
	start := len(out) - 4
	out = append(out, text...)
	out = append(out, 0)
	binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start))
	return out
}

// parse appends a Parse message. Parameters are untyped, as pgbench sends
// them, except lists, which are declared int8[].
func (e *encoder) parse(out []byte, name string, q *script.SQL, vars *script.Vars) []byte {
	e.oids = e.oids[:0]
	if hasList(q, vars) {
		for _, slot := range q.Params {
			oid := uint32(0)
			if vars.IsList(slot) {
				oid = int8ArrayOID
			}
			e.oids = append(e.oids, oid)
		}
	}
	e.parseMsg.Name, e.parseMsg.Query, e.parseMsg.ParameterOIDs = name, q.Query, e.oids
	out, _ = e.parseMsg.Encode(out)
	return out
}

func hasList(q *script.SQL, vars *script.Vars) bool {
	for _, slot := range q.Params {
		if vars.IsList(slot) {
			return true
		}
	}
	return false
}

// bind appends a Bind message with the variables' values as parameters:
// text for scalars, NULL for undefined variables (as pgbench sends them),
// and the binary int8[] format for lists.
func (e *encoder) bind(out []byte, stmt string, q *script.SQL, vars *script.Vars) []byte {
	e.buf, e.params, e.formats = e.buf[:0], e.params[:0], e.formats[:0]
	list := hasList(q, vars)
	for _, slot := range q.Params {
		start := len(e.buf)
		var ok bool
		switch {
		case vars.IsList(slot):
			e.buf = appendInt8Array(e.buf, vars.List(slot))
			ok = true
		default:
			e.buf, ok = vars.AppendText(e.buf, slot)
		}
		if list {
			f := int16(0)
			if vars.IsList(slot) {
				f = 1
			}
			e.formats = append(e.formats, f)
		}
		if !ok {
			e.params = append(e.params, nil)
			continue
		}
		// If a later append moves e.buf, this slice keeps pointing at the
		// old array, whose bytes do not change. An empty value (a NULL
		// column stored by \gset) is an empty string, as in pgbench, and
		// must not be the nil that pgproto3 sends as NULL.
		p := e.buf[start:len(e.buf):len(e.buf)]
		if p == nil {
			p = emptyParam
		}
		e.params = append(e.params, p)
	}
	e.bindMsg.DestinationPortal, e.bindMsg.PreparedStatement = "", stmt
	e.bindMsg.ParameterFormatCodes, e.bindMsg.Parameters = e.formats, e.params
	out, _ = e.bindMsg.Encode(out)
	return out
}

// appendInt8Array appends the binary form of a one-dimensional int8[].
func appendInt8Array(b []byte, xs []int64) []byte {
	ndim := uint32(1)
	if len(xs) == 0 {
		ndim = 0
	}
	b = binary.BigEndian.AppendUint32(b, ndim)
	b = binary.BigEndian.AppendUint32(b, 0) // no NULLs
	b = binary.BigEndian.AppendUint32(b, 20)
	if ndim == 0 {
		return b
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(xs)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, x := range xs {
		b = binary.BigEndian.AppendUint32(b, 8)
		b = binary.BigEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func (e *encoder) describePortal(out []byte) []byte {
	return append(out, 'D', 0, 0, 0, 6, 'P', 0)
}

func (e *encoder) execute(out []byte) []byte {
	return append(out, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0)
}

func (e *encoder) sync(out []byte) []byte {
	return append(out, 'S', 0, 0, 0, 4)
}
