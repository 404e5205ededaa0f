package script

import (
	"fmt"
	"strings"
)

// Error is a problem found in a script before it runs. Error() reads
// "file:line:col: message", then the offending line and a caret under the
// spot; Col is 0 when the problem is not at one spot.
type Error struct {
	File      string
	Line, Col int
	Msg       string
	Source    string // the offending line, without its newline
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Col > 0 {
		fmt.Fprintf(&b, "%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	} else {
		fmt.Fprintf(&b, "%s:%d: %s", e.File, e.Line, e.Msg)
	}
	if e.Source != "" {
		b.WriteString("\n")
		b.WriteString(e.Source)
		if e.Col > 0 {
			b.WriteString("\n")
			b.WriteString(caretPad(e.Source, e.Col))
			b.WriteString("^")
		}
	}
	return b.String()
}

// caretPad returns the blanks that put a caret under column col of line,
// keeping tabs so the caret lines up.
func caretPad(line string, col int) string {
	var b strings.Builder
	for i := 0; i < col-1; i++ {
		if i < len(line) && line[i] == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// source is a script's text with a line index, for positions and messages.
type source struct {
	name  string
	text  string
	lines []int // offset of the start of each line
}

func newSource(name, text string) *source {
	s := &source{name: name, text: text, lines: []int{0}}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	return s
}

// position returns the 1-based line and column of a byte offset.
func (s *source) position(off int) (line, col int) {
	lo, hi := 0, len(s.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1, off - s.lines[lo] + 1
}

// lineText returns the text of a 1-based line without its line ending.
func (s *source) lineText(line int) string {
	start := s.lines[line-1]
	end := len(s.text)
	if line < len(s.lines) {
		end = s.lines[line] - 1
	}
	return strings.TrimRight(s.text[start:end], "\r")
}

// errorAt builds an Error pointing at a byte offset.
func (s *source) errorAt(off int, format string, args ...any) *Error {
	line, col := s.position(off)
	return &Error{File: s.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), Source: s.lineText(line)}
}
