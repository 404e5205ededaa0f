package script

import (
	"strconv"
	"strings"
)

// maxSQLParams is pgbench's limit on :variables in one SQL command under
// the extended and prepared modes (MAX_ARGS - 1).
const maxSQLParams = 255

// SQL is a compiled SQL command, ready for each query mode.
//
// Variable references follow pgbench exactly, which does not look at SQL
// quoting: every ":name" (a colon, then a letter, "_" or a non-ASCII byte,
// then also digits) is a reference, wherever it is, and a run of colons
// not followed by a name ("::int") is left alone.
type SQL struct {
	// Text is the command as written (pgbench's "lines").
	Text string
	// Query is Text with references replaced by $1..$n, for the extended
	// and prepared modes; Params holds the slots of $1..$n.
	Query  string
	Params []int
	// PrepName is the statement name in prepared mode ("P_0", "P_1", ...).
	PrepName string
	// ID numbers the SQL commands of a program from 0, for per-connection
	// bookkeeping such as which statements are prepared.
	ID int

	segs []sqlSeg
}

// sqlSeg is literal text, or a variable reference when slot >= 0.
type sqlSeg struct {
	text string // literal, or the reference as written (":name")
	slot int
}

// splitRefs cuts SQL text into literals and :name references, recording
// names in order.
func splitRefs(text string) (segs []sqlSeg, names []string) {
	lit := 0
	for i := 0; i < len(text); {
		if text[i] != ':' {
			i++
			continue
		}
		j := i + 1
		if j < len(text) && isAlpha(text[j]) {
			for j < len(text) && isAlnum(text[j]) {
				j++
			}
			if lit < i {
				segs = append(segs, sqlSeg{text: text[lit:i], slot: -1})
			}
			segs = append(segs, sqlSeg{text: text[i:j], slot: len(names)})
			names = append(names, text[i+1:j])
			i, lit = j, j
			continue
		}
		for i < len(text) && text[i] == ':' {
			i++
		}
	}
	if lit < len(text) {
		segs = append(segs, sqlSeg{text: text[lit:], slot: -1})
	}
	return segs, names
}

// compileSQL builds an SQL command; intern maps a name to its slot.
func compileSQL(text string, intern func(string) int) *SQL {
	segs, names := splitRefs(text)
	q := &SQL{Text: text}
	var b strings.Builder
	n := 0
	for _, s := range segs {
		if s.slot < 0 {
			b.WriteString(s.text)
			q.segs = append(q.segs, s)
			continue
		}
		slot := intern(names[s.slot])
		q.segs = append(q.segs, sqlSeg{text: s.text, slot: slot})
		n++
		b.WriteString("$")
		b.WriteString(strconv.Itoa(n))
		q.Params = append(q.Params, slot)
	}
	q.Query = b.String()
	return q
}

// AppendSimple appends the command text with defined variables substituted,
// as pgbench's simple query mode does; undefined references stay as
// written. A list is written as a typed array literal '{1,2}'::int8[], a
// string value (gbench) as a quoted literal, so that :v is one value in
// every query mode.
func (q *SQL) AppendSimple(dst []byte, vs *Vars) []byte {
	for _, s := range q.segs {
		if s.slot < 0 {
			dst = append(dst, s.text...)
			continue
		}
		if vs.IsList(s.slot) {
			dst = append(dst, '\'')
			dst = AppendArray(dst, vs.List(s.slot))
			dst = append(dst, "'::int8[]"...)
			continue
		}
		if vs.IsString(s.slot) {
			text, _ := vs.Text(s.slot)
			dst = AppendSQLLiteral(dst, text)
			continue
		}
		var ok bool
		if dst, ok = vs.AppendText(dst, s.slot); !ok {
			dst = append(dst, s.text...)
		}
	}
	return dst
}
