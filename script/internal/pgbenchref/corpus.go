package pgbenchref

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ReadExprs reads an expression corpus such as testdata/pgbench/exprs.txt:
// one expression per line in the SplitLets format; blank lines and lines
// whose first non-blank character is '#' are skipped; a line ending in '\'
// continues on the next, and the backslash-newline stays in the expression
// (it is pgbench's own continuation).
func ReadExprs(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	var cont []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if cont == nil && (strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#")) {
			continue
		}
		cont = append(cont, line)
		if strings.HasSuffix(line, "\\") {
			continue
		}
		out = append(out, strings.Join(cont, "\n"))
		cont = nil
	}
	if cont != nil {
		return nil, fmt.Errorf("%s: continuation at end of file", path)
	}
	return out, sc.Err()
}

// ExprGolden is one line of exprs.golden.
type ExprGolden struct {
	Expr   string // as in exprs.txt, lets included
	Result ExprResult
}

// Escape makes a field fit on one tab-separated golden line: backslash,
// newline, carriage return and tab become \\, \n, \r and \t.
func Escape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s)
}

// Unescape reverses Escape.
func Unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// FormatExprLine renders one exprs.golden line (without newline):
// EXPR TAB KIND TAB TEXT, plus TAB "col=N" for static errors with a caret.
func FormatExprLine(expr string, r ExprResult) string {
	line := Escape(expr) + "\t" + string(r.Kind) + "\t" + Escape(r.Text)
	if r.Column > 0 {
		line += "\tcol=" + strconv.Itoa(r.Column)
	}
	return line
}

// ReadExprGolden parses exprs.golden; '#' lines and blank lines are skipped.
// Only Kind, Text and Column of each Result are filled.
func ReadExprGolden(r io.Reader) ([]ExprGolden, error) {
	var out []ExprGolden
	err := eachRecord(r, 3, 4, func(f []string) error {
		g := ExprGolden{Expr: Unescape(f[0]), Result: ExprResult{Kind: Kind(f[1]), Text: Unescape(f[2])}}
		if len(f) == 4 {
			n, err := strconv.Atoi(strings.TrimPrefix(f[3], "col="))
			if err != nil {
				return fmt.Errorf("bad column %q", f[3])
			}
			g.Result.Column = n
		}
		out = append(out, g)
		return nil
	})
	return out, err
}

// eachRecord calls fn with the tab-separated fields of every line that is
// not blank or a '#' comment, checking the number of fields.
func eachRecord(r io.Reader, minFields, maxFields int, fn func([]string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < minFields || len(f) > maxFields {
			return fmt.Errorf("line %d: %d fields, want %d to %d", n, len(f), minFields, maxFields)
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// argsPrefix starts a corpus script's first line that holds extra pgbench
// arguments, e.g. "-- args: -M extended -c 2".
const argsPrefix = "-- args:"

// ScriptArgs returns the extra pgbench arguments a corpus script asks for
// on its first line ("-- args: ..."), or nil. The line stays in the script
// (pgbench sees an SQL comment).
func ScriptArgs(script string) []string {
	first, _, _ := strings.Cut(script, "\n")
	rest, ok := strings.CutPrefix(strings.TrimSuffix(first, "\r"), argsPrefix)
	if !ok {
		return nil
	}
	return strings.Fields(rest)
}

// ScriptFiles returns the paths of the .sql files in dir, sorted.
func ScriptFiles(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	sort.Strings(paths)
	return paths, err
}
