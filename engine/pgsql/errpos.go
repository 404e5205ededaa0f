package pgsql

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The "LINE n:" display under a server error that points into a
// statement, as libpq's default verbosity prints it (and pgbench with it):
// the line of the statement holding the position, cut to about 60 columns
// around it, and a caret under the position.

const (
	errLineWidth = 60 // the most columns of the statement shown
	errRightKeep = 10 // columns kept right of the position when cutting
)

// appendErrorPosition appends the LINE display for a 1-based character
// position in query, each line ending in a newline; nothing when the
// position is outside the query.
func appendErrorPosition(b *strings.Builder, query string, pos int) {
	loc := pos - 1
	if loc < 0 {
		return
	}
	// For each character up to the end of the line holding loc: its byte
	// offset and its starting screen column.
	var offs, cols []int
	line, first, end := 1, 0, -1
	off, col, n := 0, 0, 0
	var prev rune
	for off < len(query) {
		r, size := utf8.DecodeRuneInString(query[off:])
		offs, cols = append(offs, off), append(cols, col)
		if r == '\r' || r == '\n' {
			if n >= loc {
				end = n
				break
			}
			// "\r\n" counts as one line end.
			if r == '\r' || n == 0 || prev != '\r' {
				line++
			}
			first = n + 1
		}
		prev = r
		col += runeWidth(r)
		off += size
		n++
	}
	if end < 0 {
		end = n
		offs, cols = append(offs, off), append(cols, col)
	}
	if loc > n {
		return
	}
	cutLeft, cutRight := false, false
	if cols[end]-cols[first] > errLineWidth {
		if cols[first]+errLineWidth >= cols[loc]+errRightKeep {
			for cols[end]-cols[first] > errLineWidth {
				end--
			}
			cutRight = true
		} else {
			for cols[loc]+errRightKeep < cols[end] {
				end--
				cutRight = true
			}
			for cols[end]-cols[first] > errLineWidth {
				first++
				cutLeft = true
			}
		}
	}
	prefix := "LINE " + strconv.Itoa(line) + ": "
	if cutLeft {
		prefix += "..."
	}
	b.WriteString(prefix)
	b.WriteString(strings.ReplaceAll(query[offs[first]:offs[end]], "\t", " "))
	if cutRight {
		b.WriteString("...")
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", len(prefix)+cols[loc]-cols[first]))
	b.WriteString("^\n")
}

// runeWidth is the screen width of a character: 2 for the wide characters
// of East Asian scripts, 1 for everything else (libpq counts control and
// combining characters as 1 as well).
func runeWidth(r rune) int {
	switch {
	case r >= 0x1100 && r <= 0x115F, r >= 0x2E80 && r <= 0xA4CF && r != 0x303F,
		r >= 0xAC00 && r <= 0xD7A3, r >= 0xF900 && r <= 0xFAFF, r >= 0xFE30 && r <= 0xFE6F,
		r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6, r >= 0x20000 && r <= 0x3FFFD:
		return 2
	}
	return 1
}
