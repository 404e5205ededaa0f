package script

import (
	"fmt"
	"strconv"
)

// RESPCommand is gbench's \resp meta-command: one Redis-protocol command
// whose arguments are templates.
//
// In an argument, ":name" (a colon, then a letter, "_" or non-ASCII byte,
// then also digits) is replaced by the variable's value when the variable
// is defined and left as written otherwise; so "item::k" is "item:42" when
// k is 42. An argument that refers to a list variable expands to one
// argument per element ("item::keys" gives item:1 item:2 ...); at most one
// list may appear in one argument.
type RESPCommand struct {
	Args []RESPArg
}

// RESPArg is one argument template.
type RESPArg struct {
	Text string // the argument as written, quotes removed
	segs []sqlSeg
	refs []string
}

// respArgRefs cuts an argument into literals and references. Unlike SQL,
// each colon is looked at on its own, so "::k" is ":" then ":k".
func respArgRefs(text string) (segs []sqlSeg, names []string) {
	lit := 0
	for i := 0; i < len(text); i++ {
		if text[i] != ':' || i+1 >= len(text) || !isAlpha(text[i+1]) {
			continue
		}
		j := i + 1
		for j < len(text) && isAlnum(text[j]) {
			j++
		}
		if lit < i {
			segs = append(segs, sqlSeg{text: text[lit:i], slot: -1})
		}
		segs = append(segs, sqlSeg{text: text[i:j], slot: len(names)})
		names = append(names, text[i+1:j])
		lit = j
		i = j - 1
	}
	if lit < len(text) {
		segs = append(segs, sqlSeg{text: text[lit:], slot: -1})
	}
	return segs, names
}

// listLen returns the length of the list the argument refers to, or -1.
func (a *RESPArg) listLen(vs *Vars) (int, error) {
	n := -1
	for _, s := range a.segs {
		if s.slot >= 0 && vs.IsList(s.slot) {
			if n >= 0 {
				return 0, fmt.Errorf("\\resp argument %q refers to more than one list", a.Text)
			}
			n = len(vs.List(s.slot))
		}
	}
	return n, nil
}

// appendOne appends the argument's text, using element elem of its list.
func (a *RESPArg) appendOne(dst []byte, vs *Vars, elem int) []byte {
	for _, s := range a.segs {
		switch {
		case s.slot < 0:
			dst = append(dst, s.text...)
		case vs.IsList(s.slot):
			dst = AppendInt(dst, vs.List(s.slot)[elem])
		default:
			var ok bool
			if dst, ok = vs.AppendText(dst, s.slot); !ok {
				dst = append(dst, s.text...)
			}
		}
	}
	return dst
}

// ListLen returns the length of the list the argument refers to, so the
// number of arguments it expands to, or -1 when it refers to none and is
// one argument.
func (a *RESPArg) ListLen(vs *Vars) (int, error) { return a.listLen(vs) }

// AppendText appends the text after substitution of an argument that
// refers to no list.
func (a *RESPArg) AppendText(dst []byte, vs *Vars) []byte {
	return a.appendOne(dst, vs, 0)
}

// AppendAffixes appends the argument's text after substitution, less
// its list reference ("gbench:item::keys" gives "gbench:item:"), when it
// refers to a list: each element's argument is then the text before at,
// the element's decimal text (AppendInt), and the text from at, and its
// length is known before it is written (DecimalLen). ok is false when the
// argument refers to no list (or to more than one: ListLen fails).
func (a *RESPArg) AppendAffixes(dst []byte, vs *Vars) (_ []byte, at int, list []int64, ok bool) {
	at = -1
	for _, s := range a.segs {
		switch {
		case s.slot < 0:
			dst = append(dst, s.text...)
		case vs.IsList(s.slot):
			if at >= 0 {
				return dst, 0, nil, false
			}
			at, list = len(dst), vs.List(s.slot)
		default:
			var ok bool
			if dst, ok = vs.AppendText(dst, s.slot); !ok {
				dst = append(dst, s.text...)
			}
		}
	}
	return dst, at, list, at >= 0
}

// AppendArgs appends every argument after substitution and list expansion
// to buf, and the end offset of each argument to ends. Both are returned
// for reuse; nothing is allocated once they are large enough.
func (c *RESPCommand) AppendArgs(vs *Vars, buf []byte, ends []int) ([]byte, []int, error) {
	for i := range c.Args {
		a := &c.Args[i]
		n, err := a.listLen(vs)
		if err != nil {
			return buf, ends, err
		}
		if n < 0 {
			buf = a.appendOne(buf, vs, 0)
			ends = append(ends, len(buf))
			continue
		}
		for e := 0; e < n; e++ {
			buf = a.appendOne(buf, vs, e)
			ends = append(ends, len(buf))
		}
	}
	return buf, ends, nil
}

// splitRESPArgs splits a \resp line into arguments like redis-cli: blanks
// separate arguments; "double quotes" allow \" \\ \n \r \t \b \a and \xHH
// escapes; 'single quotes' allow \'. A closing quote must be followed by a
// blank or the end. It returns the offset of a problem in text, or -1.
func splitRESPArgs(text string) (args []string, bad int, msg string) {
	i := 0
	for {
		for i < len(text) && (isMetaBlank(text[i]) || continuationLen(text[i:]) > 0 || text[i] == '\n') {
			if n := continuationLen(text[i:]); n > 0 {
				i += n
			} else {
				i++
			}
		}
		if i >= len(text) {
			return args, -1, ""
		}
		start := i
		arg, n, err := scanRESPArg(text[i:])
		if err != "" {
			return nil, start + n, err
		}
		args = append(args, arg)
		i += n
	}
}

// scanRESPArg scans one argument; on error n is the offset of the problem.
func scanRESPArg(s string) (arg string, n int, err string) {
	var b []byte
	quote := byte(0)
	for n < len(s) {
		c := s[n]
		switch {
		case quote == 0 && (isMetaBlank(c) || c == '\n' || continuationLen(s[n:]) > 0):
			return string(b), n, ""
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
			n++
		case quote != 0 && c == quote:
			n++
			if n < len(s) && !isMetaBlank(s[n]) && s[n] != '\n' {
				return "", n, "closing quote must be followed by a blank"
			}
			return string(b), n, ""
		case quote == '"' && c == '\\' && n+1 < len(s):
			var m int
			b, m = appendEscape(b, s[n:])
			n += m
		case quote == '\'' && c == '\\' && n+1 < len(s) && s[n+1] == '\'':
			b = append(b, '\'')
			n += 2
		default:
			b = append(b, c)
			n++
		}
	}
	if quote != 0 {
		return "", n, "unbalanced quotes"
	}
	return string(b), n, ""
}

// appendEscape decodes one backslash escape inside double quotes.
func appendEscape(b []byte, s string) ([]byte, int) {
	if s[1] == 'x' && len(s) >= 4 && isHex(s[2]) && isHex(s[3]) {
		v, _ := strconv.ParseUint(s[2:4], 16, 8)
		return append(b, byte(v)), 4
	}
	switch s[1] {
	case 'n':
		return append(b, '\n'), 2
	case 'r':
		return append(b, '\r'), 2
	case 't':
		return append(b, '\t'), 2
	case 'b':
		return append(b, '\b'), 2
	case 'a':
		return append(b, '\a'), 2
	}
	return append(b, s[1]), 2
}

func isHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (p *parser) parseRESP(cmd *Command, raw rawCommand, ws []word) error {
	base := ws[0].end
	args, bad, msg := splitRESPArgs(p.src.text[base:raw.end])
	if bad >= 0 {
		return p.src.errorAt(base+bad, "%s", msg).in("resp")
	}
	if len(args) == 0 {
		return p.src.errorAt(ws[0].off, "missing command").in("resp").because("expected a command name and its arguments")
	}
	rc := &RESPCommand{}
	for _, a := range args {
		segs, refs := respArgRefs(a)
		rc.Args = append(rc.Args, RESPArg{Text: a, segs: segs, refs: refs})
	}
	cmd.RESP = rc
	return nil
}

// Literal reports whether the argument refers to no variable: its value
// is Text whatever the client's variables.
func (a *RESPArg) Literal() bool { return len(a.refs) == 0 }
