package resp

import (
	"fmt"
	"strconv"
	"strings"
)

// render prints the recorded values as a compact tree, for comparisons:
// bulk "x", int 5, [a b] for arrays, {k=v} for maps, |{k=v}| for attributes.
func render(vals []Value) string {
	var parts []string
	for i := 0; i < len(vals); i = int(vals[i].End) {
		parts = append(parts, renderAt(vals, i))
	}
	return strings.Join(parts, " ")
}

func renderAt(vals []Value, i int) string {
	v := &vals[i]
	switch v.Kind {
	case KindArray, KindSet, KindPush:
		return renderOpen(v.Kind) + renderKids(vals, i, " ") + renderClose(v.Kind)
	case KindMap, KindAttribute:
		return renderOpen(v.Kind) + renderKids(vals, i, "=") + renderClose(v.Kind)
	case KindInt:
		return "int " + strconv.FormatInt(v.Int, 10)
	case KindBool:
		return "bool " + strconv.FormatBool(v.Int == 1)
	case KindNull:
		return "null"
	case KindDouble:
		return fmt.Sprintf("double %v", v.Float)
	case KindVerbatim:
		return fmt.Sprintf("verbatim %s %q", v.Format[:], v.Bytes)
	}
	return fmt.Sprintf("%s %q", strings.Fields(v.Kind.String())[0], v.Bytes)
}

// renderKids joins the children of vals[i], pairing map entries with sep.
func renderKids(vals []Value, i int, sep string) string {
	var b strings.Builder
	k := 0
	for j := i + 1; j < int(vals[i].End); j = int(vals[j].End) {
		if j > i+1 {
			if sep == "=" && k%2 == 1 {
				b.WriteString("=")
			} else {
				b.WriteString(" ")
			}
		}
		b.WriteString(renderAt(vals, j))
		if vals[j].Kind != KindAttribute {
			k++
		}
	}
	return b.String()
}

func renderOpen(k Kind) string {
	switch k {
	case KindMap:
		return "{"
	case KindAttribute:
		return "|{"
	case KindSet:
		return "set["
	case KindPush:
		return "push["
	}
	return "["
}

func renderClose(k Kind) string {
	switch k {
	case KindMap:
		return "}"
	case KindAttribute:
		return "}|"
	}
	return "]"
}
