package script

import (
	"fmt"
	"strconv"
)

// Symbols maps the variable names a program mentions to slots. It is built
// by Compile and never changes afterwards, so any number of clients may read
// it concurrently.
type Symbols struct {
	names []string
	index map[string]int
}

func newSymbols() *Symbols { return &Symbols{index: map[string]int{}} }

// intern returns the slot of name, adding it if needed.
func (s *Symbols) intern(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	s.index[name] = len(s.names)
	s.names = append(s.names, name)
	return len(s.names) - 1
}

// Lookup returns the slot of a variable name. It does not allocate.
func (s *Symbols) Lookup(name []byte) (int, bool) {
	i, ok := s.index[string(name)]
	return i, ok
}

// Slot returns the slot of a variable name, or -1.
func (s *Symbols) Slot(name string) int {
	if i, ok := s.index[name]; ok {
		return i
	}
	return -1
}

// Name returns the name of a slot.
func (s *Symbols) Name(slot int) string { return s.names[slot] }

// Len returns the number of slots.
func (s *Symbols) Len() int { return len(s.names) }

// variable is one client variable kept the way pgbench keeps it: a text
// form (set by -D, \gset, or cached after formatting) and/or a typed value
// (set by \set, or cached after parsing the text).
type variable struct {
	defined bool
	val     Value // KindNone when only the text is known
	text    []byte
	hasText bool
	list    []int64
	isList  bool
	reply   bool // text from a \resp reply (see SetReplyText)
}

// Vars holds one client's variables, indexed by slot. It is owned by one
// client and must not be used concurrently. Its buffers are reused, so
// setting and reading variables does not allocate in steady state.
type Vars struct {
	syms *Symbols
	v    []variable
}

// NewVars returns an empty variable set for a program's symbols.
func NewVars(syms *Symbols) *Vars {
	return &Vars{syms: syms, v: make([]variable, syms.Len())}
}

// Symbols returns the symbol table the variables are indexed by.
func (vs *Vars) Symbols() *Symbols { return vs.syms }

// Defined reports whether the variable in slot has a value.
func (vs *Vars) Defined(slot int) bool { return vs.v[slot].defined }

// IsList reports whether the variable in slot holds a list.
func (vs *Vars) IsList(slot int) bool { return vs.v[slot].isList }

// List returns the list held in slot; valid until the variable is set again.
func (vs *Vars) List(slot int) []int64 { return vs.v[slot].list }

// Set assigns a typed value.
func (vs *Vars) Set(slot int, val Value) {
	x := &vs.v[slot]
	x.defined, x.val, x.hasText, x.isList, x.reply = true, val, false, false, false
}

// SetInt assigns an integer.
func (vs *Vars) SetInt(slot int, i int64) { vs.Set(slot, Int(i)) }

// SetText assigns a text value, copied into the variable's own buffer.
func (vs *Vars) SetText(slot int, b []byte) {
	x := &vs.v[slot]
	x.defined, x.val, x.isList, x.reply = true, Value{}, false, false
	x.text = append(x.text[:0], b...)
	x.hasText = true
}

// SetString assigns a string value (gbench), copied into the variable's own
// buffer. It substitutes as its text into \resp and shell commands, as a
// text parameter in the extended and prepared modes, and as a quoted
// literal in simple mode (see SQL.AppendSimple).
func (vs *Vars) SetString(slot int, b []byte) {
	x := &vs.v[slot]
	x.defined, x.val, x.isList, x.reply = true, Value{kind: KindString}, false, false
	x.text = append(x.text[:0], b...)
	x.hasText = true
}

// IsString reports whether the variable in slot holds a string value.
func (vs *Vars) IsString(slot int) bool { return vs.v[slot].val.kind == KindString }

// SetReplyText assigns text from a \resp reply. It reads like SetText's,
// except that text which is not a number or a boolean is a non-NULL value
// for IS [NOT] NULL/TRUE/FALSE, so that scripts can test a cache reply.
func (vs *Vars) SetReplyText(slot int, b []byte) {
	vs.SetText(slot, b)
	vs.v[slot].reply = true
}

// isReplyText reports whether slot holds text from a \resp reply.
func (vs *Vars) isReplyText(slot int) bool {
	x := &vs.v[slot]
	return x.defined && x.hasText && x.reply
}

// SetList assigns a list, copied into the variable's own buffer.
func (vs *Vars) SetList(slot int, xs []int64) {
	x := &vs.v[slot]
	x.defined, x.val, x.hasText, x.isList = true, Value{}, false, true
	if len(xs) > 0 && cap(x.list) > 0 && &x.list[:1][0] == &xs[0] {
		x.list = xs // built in place (listBuffer): nothing to copy
		return
	}
	x.list = append(x.list[:0], xs...)
}

// listBuffer returns slot's list buffer, emptied, for building a list in place.
func (vs *Vars) listBuffer(slot int) []int64 { return vs.v[slot].list[:0] }

// Unset removes a variable's value.
func (vs *Vars) Unset(slot int) {
	vs.v[slot] = variable{text: vs.v[slot].text[:0], list: vs.v[slot].list[:0]}
}

// CopyFrom makes vs a copy of o (same symbols), reusing vs's buffers.
func (vs *Vars) CopyFrom(o *Vars) {
	for i := range o.v {
		src, dst := &o.v[i], &vs.v[i]
		dst.defined, dst.val, dst.hasText, dst.isList = src.defined, src.val, src.hasText, src.isList
		dst.text = append(dst.text[:0], src.text...)
		dst.list = append(dst.list[:0], src.list...)
	}
}

// AppendText appends the variable's text as pgbench substitutes it into SQL
// and shell commands. It reports false when the variable is undefined. A list
// is written as an array literal without quotes, {1,2,3}.
func (vs *Vars) AppendText(dst []byte, slot int) ([]byte, bool) {
	x := &vs.v[slot]
	switch {
	case !x.defined:
		return dst, false
	case x.isList:
		return AppendArray(dst, x.list), true
	case !x.hasText:
		x.text = x.val.AppendText(x.text[:0])
		x.hasText = true
	}
	return append(dst, x.text...), true
}

// AppendArray appends a PostgreSQL array literal of integers: {1,2,3}.
func AppendArray(dst []byte, xs []int64) []byte {
	dst = append(dst, '{')
	for i, n := range xs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, n, 10)
	}
	return append(dst, '}')
}

// Value returns the typed value of a variable for use in an expression,
// parsing its text the way pgbench does ("1" is an int, "1.5" a double,
// "t"/"yes"/"on" booleans, "null" NULL). Lists are an error. For a string
// variable it returns a Value of KindString without its bytes: Env.Eval
// reads them (Text) into its own buffer.
func (vs *Vars) Value(slot int) (Value, error) {
	x := &vs.v[slot]
	switch {
	case !x.defined:
		return Value{}, fmt.Errorf("undefined variable \"%s\"", vs.syms.names[slot])
	case x.isList:
		return Value{}, fmt.Errorf("variable %q holds a list where a number is required", vs.syms.names[slot])
	case x.val.kind != KindNone:
		return x.val, nil
	}
	v, err := parseVarText(vs.syms.names[slot], x.text)
	if err != nil {
		return Value{}, err
	}
	x.val = v
	return v, nil
}

// Text returns the raw text of a variable that was set as text.
func (vs *Vars) Text(slot int) ([]byte, bool) {
	x := &vs.v[slot]
	return x.text, x.defined && x.hasText && !x.isList
}
