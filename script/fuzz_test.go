package script

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary scripts to the scanner, the meta-command parser
// and the expression grammar: they must return a script or an *Error (with
// a position inside the text, spelled file:line[:col] with the caret under
// that column of the line it quotes), the same on a second parse, never
// panic or hang, and compile in every query mode.
func FuzzParse(f *testing.F) {
	for _, b := range Builtins {
		f.Add(b.Text)
	}
	for _, s := range []string{
		"SELECT 1;", "\\set x 1 + 2 * 3\n", "\\if :x\nSELECT 1;\n\\elif false\n\\else\n\\endif\n",
		"SELECT ':x', $q$;$q$, \"a;b\" \\; SELECT 2 \\gset p_\n", "/* /* nested */ ; */ SELECT 1;",
		"\\sleep 10ms\n\\setshell v echo 1\n\\shell true\n", "\\startpipeline\nSELECT 1;\n\\endpipeline\n",
		"\\resp SET \"a b\" 'c d' item::k\n\\gset\n", "\\set keys random_keys(1, 100, 5)\n",
		"\\set x case when 1 then 2 else 3 end\n", "\\set x -9223372036854775808\n", "E'\\\\';", "SELECT 1 -- c\n",
		"create function f() returns int begin atomic select 1; end;", "\\set x 1 \\\n + 2\n",
		"\\set k uuid(:i) || 'it''s'\nSELECT :k;\n", "\\set v lpad(random_string(3), 5, '-') || 'x\n",
		"\\if 'a' = concat('a', null)\n\\endif\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("f.sql", text, 1)
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			// Line 0 is an error about the whole script, at no spot.
			if e.Line < 0 || e.Line > strings.Count(text, "\n")+1 || e.Line == 0 && e.Col != 0 {
				t.Fatalf("error line %d outside the text: %v", e.Line, e)
			}
			raw := ""
			if e.Line > 0 {
				raw = strings.Split(text, "\n")[e.Line-1]
			}
			checkErrorPlace(t, e, raw)
			if _, err2 := Parse("f.sql", text, 1); err2 == nil || err2.Error() != e.Error() {
				t.Fatalf("second parse: %v, first: %v", err2, e)
			}
			return
		}
		for m := Simple; m <= Prepared; m++ {
			s2, err := Parse("f.sql", text, 1)
			if err != nil {
				t.Fatalf("second parse failed: %v", err)
			}
			if _, err := Compile([]*Script{s2}, m, nil); err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("compile error of type %T: %v", err, err)
				}
			}
		}
		_ = s
	})
}

// FuzzEval evaluates arbitrary expressions with variables of every kind:
// evaluation returns a value or an error, never panics, and is
// deterministic for a seed.
func FuzzEval(f *testing.F) {
	for _, s := range []string{
		"1 + 2 * 3", ":i / :d", "random(1, :i)", "random_zipfian(1, 100, :d)", "permute(:i, 10)",
		"hash(:t)", "least(:i, :d, :n)", "case when :b then :i end", "int(:d * 1e300)", "-:i % 0",
		"random_gaussian(1, 10, 2.5)", "random_exponential(1, 10, 0.5)", ":s + 1", ":l", "1 << :i",
		"abs(-9223372036854775807 - 1)", "sqrt(-1) = sqrt(-1)", "double(:t) IS NULL", "pow(:d, :i)",
		"'a' || :i || :d", "uuid(:i)", "random_string(:i % 100)", "lpad(:t, :i, 'xy')", "rpad(:d, 3)",
		"repeat(:s, :i)", "concat(:n, :b, 'q''')", "length(:t || :s) = :i", "'b' < 'a' || :t",
	} {
		f.Add(s, int64(3), 2.5)
	}
	f.Fuzz(func(t *testing.T, expr string, i int64, d float64) {
		if strings.ContainsAny(expr, "\n") {
			return
		}
		setup := "\\set i " + Int(i).String() + "\n\\set d " + Double(d).String() + "\n"
		src := setup + "\\set b true\n\\set n null\n\\set l range(1, 3)\n\\set x " + expr + "\n"
		s, err := Parse("f.sql", src, 1)
		if err != nil {
			return
		}
		p, err := Compile([]*Script{s}, Simple, []string{"t", "s"})
		if err != nil {
			return
		}
		run := func() string {
			env := newTestEnv(p, 99)
			env.Vars.SetText(p.Syms.Slot("t"), []byte(" 42"))
			env.Vars.SetText(p.Syms.Slot("s"), []byte("yes"))
			for _, c := range s.Commands {
				if err := env.ExecSet(c.Set); err != nil {
					return "error: " + err.Error()
				}
			}
			b, _ := env.Vars.AppendText(nil, p.Syms.Slot("x"))
			return string(b)
		}
		if a, b := run(), run(); a != b {
			t.Fatalf("not deterministic: %q then %q", a, b)
		}
	})
}

// checkErrorPlace checks that an error names its place: "f.sql:LINE:" or
// "f.sql:LINE:COL:", and, with a column, the quoted line then a caret
// line. The column is at most one past the end of the line as written
// (raw): a line's '\r' is not shown but counts, as in pgbench.
func checkErrorPlace(t *testing.T, e *Error, raw string) {
	t.Helper()
	msg := e.Error()
	prefix := "" // an error about the whole script names it in its words
	if e.Line > 0 {
		prefix = fmt.Sprintf("f.sql:%d:", e.Line)
	}
	if e.Col > 0 {
		prefix += fmt.Sprintf("%d:", e.Col)
	}
	if !strings.HasPrefix(msg, prefix) || e.Col < 0 {
		t.Fatalf("error %q does not start with %q", msg, prefix)
	}
	if e.Col > 0 && e.Source != "" {
		if e.Col > len(raw)+1 {
			t.Fatalf("error column %d beyond its line %q", e.Col, raw)
		}
		lines := strings.Split(msg, "\n")
		pad, ok := strings.CutSuffix(lines[len(lines)-1], "^ error found here")
		if !ok || strings.Trim(pad, " \t") != "" || len(pad) != e.Col-1 {
			t.Fatalf("error %q does not end with a caret line under column %d", msg, e.Col)
		}
	}
}
