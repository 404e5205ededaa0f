package resp

// Kind is the type of one RESP value. Its numeric value is the type byte
// that introduces the value on the wire, except that every null ($-1, *-1
// and RESP3 _) is reported as KindNull.
type Kind byte

// The kinds a Reader reports.
const (
	KindSimple    Kind = '+' // simple string: Bytes holds the text
	KindError     Kind = '-' // simple error: Bytes holds the text, e.g. "ERR unknown command"
	KindInt       Kind = ':' // integer: Int holds the value
	KindBulk      Kind = '$' // bulk (blob) string: Bytes holds the payload
	KindArray     Kind = '*' // array: Int holds the number of elements
	KindNull      Kind = '_' // null: RESP3 _, RESP2 null bulk $-1 and null array *-1
	KindBool      Kind = '#' // RESP3 boolean: Int is 1 for true, 0 for false
	KindDouble    Kind = ',' // RESP3 double: Float holds the value, Bytes its text
	KindBigNumber Kind = '(' // RESP3 big number: Bytes holds the digits with an optional '-'
	KindBlobError Kind = '!' // RESP3 blob error: Bytes holds the text
	KindVerbatim  Kind = '=' // RESP3 verbatim string: Format holds e.g. "txt", Bytes the text after "txt:"
	KindMap       Kind = '%' // RESP3 map: Int holds the number of key-value pairs
	KindSet       Kind = '~' // RESP3 set: Int holds the number of elements
	KindPush      Kind = '>' // RESP3 push (out-of-band data): Int holds the number of elements
	KindAttribute Kind = '|' // RESP3 attribute: Int holds the number of key-value pairs
)

// String returns a lower-case name for k, such as "bulk string".
func (k Kind) String() string {
	switch k {
	case KindSimple:
		return "simple string"
	case KindError:
		return "error"
	case KindInt:
		return "integer"
	case KindBulk:
		return "bulk string"
	case KindArray:
		return "array"
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindDouble:
		return "double"
	case KindBigNumber:
		return "big number"
	case KindBlobError:
		return "blob error"
	case KindVerbatim:
		return "verbatim string"
	case KindMap:
		return "map"
	case KindSet:
		return "set"
	case KindPush:
		return "push"
	case KindAttribute:
		return "attribute"
	}
	return "invalid kind"
}

// Value is one decoded RESP value, recorded by a Reader in depth-first
// order: an aggregate comes first, then its children, then its next sibling.
//
// Bytes aliases the buffer given to Reader.Parse: it is valid only as long
// as that buffer is neither modified nor reused, and the Value itself only
// until the next call to Parse on the same Reader. Copy what must be kept.
type Value struct {
	Kind   Kind
	Format [3]byte // KindVerbatim only: the format, such as "txt" or "mkd"
	Depth  int32   // 0 for a top-level value, 1 for its children, and so on
	Parent int32   // index of the enclosing aggregate in Reader.Values, -1 at top level
	End    int32   // index just past this value's subtree in Reader.Values
	Int    int64   // see the Kind constants
	Float  float64 // KindDouble only
	Bytes  []byte  // see the Kind constants; nil for kinds without text
}

// IsError reports whether v is an error reply (KindError or KindBlobError).
func (v *Value) IsError() bool {
	return v.Kind == KindError || v.Kind == KindBlobError
}

// IsAggregate reports whether v contains other values.
func (v *Value) IsAggregate() bool {
	switch v.Kind {
	case KindArray, KindMap, KindSet, KindPush, KindAttribute:
		return true
	}
	return false
}

// Children returns the number of values directly inside v on the wire:
// the element count, twice the pair count for maps and attributes, and 0
// for values that are not aggregates. Attributes attached to children are
// not counted.
func (v *Value) Children() int64 {
	switch v.Kind {
	case KindArray, KindSet, KindPush:
		return v.Int
	case KindMap, KindAttribute:
		return 2 * v.Int
	}
	return 0
}
