package script

import (
	"fmt"
	"strings"
)

// Error is a problem found in a script before it runs. Error() reads
// "file:line:col: message", then the offending line and a caret under the
// spot. The message is pgbench's words (Msg and, for a meta-command, ` in
// command "name"`), then gbench's explanation when it has one. Col is 0
// when the problem is not at one spot, Line is 0 when it is about the whole
// script (whose name the message then gives).
type Error struct {
	File      string
	Line, Col int
	Msg       string // pgbench's words: "syntax error", "unexpected function name (x)"
	Cmd       string // the meta-command, without its backslash, or ""
	Detail    string // gbench's explanation after pgbench's words, or ""
	Source    string // the offending line, without its newline
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Line > 0 && e.Col > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", e.File, e.Line, e.Col)
	case e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	}
	b.WriteString(e.Msg)
	if e.Cmd != "" {
		fmt.Fprintf(&b, " in command \"%s\"", e.Cmd)
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	if e.Source != "" {
		b.WriteString("\n")
		b.WriteString(e.Source)
		if e.Col > 0 {
			b.WriteString("\n")
			b.WriteString(caretPad(e.Source, e.Col))
			b.WriteString("^ error found here")
		}
	}
	return b.String()
}

// in names the meta-command the error is in.
func (e *Error) in(cmd string) *Error {
	e.Cmd = cmd
	return e
}

// because adds gbench's explanation.
func (e *Error) because(format string, args ...any) *Error {
	e.Detail = fmt.Sprintf(format, args...)
	return e
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
