package script

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gbench/gbench/script/internal/pgbenchref"
)

// The tests in this file compare gbench's script package with pgbench 15's
// recorded behaviour in testdata/pgbench (generated from the real binary by
// script/internal/pgbenchref, whose own test re-checks those files against
// pgbench whenever it is installed). Together they are the differential
// test: pgbench == golden files == gbench.

// pgbenchEnv returns a client environment seeded the way pgbench seeds its
// only client with --random-seed=seed, with pgbench's predefined variables.
func pgbenchEnv(p *Program, seed uint64, clients, client int) *Env {
	var base PRNG
	base.Seed(seed)
	env := &Env{Vars: NewVars(p.Syms)}
	for i := 0; i < clients; i++ {
		s := base.Uint64()
		if i == client {
			env.Rand.Seed(s)
		}
	}
	def := int64(base.Uint64())
	env.Vars.SetInt(p.ClientID, int64(client))
	env.Vars.SetInt(p.Scale, 1)
	env.Vars.SetInt(p.DefaultSeed, def)
	env.Vars.SetInt(p.RandomSeed, int64(seed))
	return env
}

// evalLine evaluates one exprs.txt line like pgbenchref does with pgbench:
// its lets, then "\set res EXPR". It returns the value text, or the kind
// of failure.
func evalLine(line string) (kind pgbenchref.Kind, text string) {
	lets, expr := pgbenchref.SplitLets(line)
	var src strings.Builder
	var defs []string
	for _, l := range lets {
		if l.String && l.Value == "" {
			return pgbenchref.Static, fmt.Sprintf("invalid variable definition: \"%s=\"", l.Name) // the CLI's -D check
		}
		if l.String {
			defs = append(defs, l.Name)
		} else {
			fmt.Fprintf(&src, "\\set %s %s\n", l.Name, l.Value)
		}
	}
	fmt.Fprintf(&src, "\\set res %s\n", expr)
	s, err := Parse("script.sql", src.String(), 1)
	if err != nil {
		return pgbenchref.Static, err.Error()
	}
	p, err := Compile([]*Script{s}, Simple, defs)
	if err != nil {
		return pgbenchref.Static, err.Error()
	}
	env := pgbenchEnv(p, 0, 1, 0)
	for _, l := range lets {
		if l.String {
			env.Vars.SetText(p.Syms.Slot(l.Name), []byte(l.Value))
		}
	}
	for _, c := range s.Commands {
		if err := env.ExecSet(c.Set); err != nil {
			return pgbenchref.Runtime, err.Error()
		}
	}
	b, _ := env.Vars.AppendText(nil, p.Syms.Slot("res"))
	return pgbenchref.Value, string(b)
}

func TestExpressionsMatchPgbench(t *testing.T) {
	f, err := os.Open("testdata/pgbench/exprs.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	golden, err := pgbenchref.ReadExprGolden(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(golden) < 400 {
		t.Fatalf("only %d expressions in the golden file", len(golden))
	}
	failures := 0
	extensions := 0
	for _, g := range golden {
		kind, text := evalLine(g.Expr)
		want := g.Result
		if ext, ok := stringExtensions[g.Expr]; ok {
			// pgbench must reject the form, or gbench's meaning for it
			// would change a pgbench script; gbench gives its own result.
			extensions++
			if want.Kind != pgbenchref.Static {
				t.Errorf("%s: pgbench accepts it (%s %s), so it cannot be a gbench extension", g.Expr, want.Kind, want.Text)
			}
			if kind != ext.kind || firstLine(text) != ext.text {
				t.Errorf("%s: gbench extension gives %s %s, want %s %s", g.Expr, kind, firstLine(text), ext.kind, ext.text)
			}
			continue
		}
		ok := kind == want.Kind && (kind != pgbenchref.Value || text == want.Text) &&
			(kind != pgbenchref.Static || samePgbenchMessage(want.Text, text))
		if !ok {
			failures++
			if failures <= 40 {
				t.Errorf("%s\n  pgbench: %s %s\n  gbench:  %s %s", g.Expr, want.Kind, want.Text, kind, firstLine(text))
			}
		}
	}
	if failures > 40 {
		t.Errorf("... %d differences in all", failures)
	}
	if extensions != len(stringExtensions) {
		t.Errorf("%d of the %d string extensions are in the golden file", extensions, len(stringExtensions))
	}
}

// stringExtensions are the golden expressions that pgbench rejects and
// gbench accepts on purpose: string literals, a gbench extension
// (strings.go). The result is gbench's.
var stringExtensions = map[string]struct {
	kind pgbenchref.Kind
	text string
}{
	"CASE WHEN 1 THEN 'a' END": {pgbenchref.Value, "a"},
	"'a'":                      {pgbenchref.Value, "a"},
	"1 + 'a'":                  {pgbenchref.Runtime, "cannot coerce string to int"},
	"'a' || 'b'":               {pgbenchref.Value, "ab"},
	"'it''s'":                  {pgbenchref.Value, "it's"},
	"1 || 2":                   {pgbenchref.Value, "12"},
	":x || 'a'":                {pgbenchref.Runtime, `undefined variable "x"`},
	"'a' = 'a'":                {pgbenchref.Value, "true"},
	"uuid(1)":                  {pgbenchref.Value, "680aaf68-404c-8b53-a595-9f7ca49776e9"},
	"random_string(8)":         {pgbenchref.Value, "8fZsZ9FC"}, // client 0's sequence for --random-seed=0
	"lpad('7', 3, '0')":        {pgbenchref.Value, "007"},
	"rpad(1, 3)":               {pgbenchref.Value, "1  "},
	"repeat('ab', 2)":          {pgbenchref.Value, "abab"},
	"concat('a', 1)":           {pgbenchref.Value, "a1"},
	"length('abc')":            {pgbenchref.Value, "3"},
	"length(1)":                {pgbenchref.Value, "1"},
	"concat(1, 2)":             {pgbenchref.Value, "12"},
	// Rejected by both; gbench says why.
	"'unterminated": {pgbenchref.Static, `script.sql:1:10: unterminated quoted string in command "set"`},
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestBadScriptsRejectedLikePgbench: scripts pgbench rejects before
// running (exit 1) are rejected by Parse or Compile; scripts that pgbench
// only fails at run time (exit 2) must parse. (The run-time failures
// themselves are checked through the CLI in cmd/gbench.)
func TestBadScriptsRejectedLikePgbench(t *testing.T) {
	exits := readBadGolden(t)
	files, err := filepath.Glob("testdata/pgbench/bad/*.sql")
	if err != nil || len(files) < 100 {
		t.Fatalf("bad scripts: %d, %v", len(files), err)
	}
	for _, file := range files {
		name := filepath.Base(file)
		want, ok := exits[name]
		if !ok {
			t.Errorf("%s: not in bad.golden", name)
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		args := pgbenchref.ScriptArgs(string(data))
		mode := modeOf(args)
		err = badDefine(args)
		var s *Script
		if err == nil {
			s, err = Parse("script.sql", string(data), 1)
		}
		if err == nil {
			_, err = Compile([]*Script{s}, mode, nil)
		}
		switch {
		case want.exit == "1" && err == nil && badMessageDiffers[name] != "" && strings.HasPrefix(badMessageDiffers[name], "accepted:"):
			t.Logf("%s: allowed difference (%s)", name, badMessageDiffers[name])
		case want.exit == "1" && err == nil:
			t.Errorf("%s: pgbench rejects it before running; gbench accepts it", name)
		case want.exit == "2" && err != nil:
			t.Errorf("%s: pgbench fails it at run time; gbench rejects it before running: %v", name, err)
		case want.exit == "1" && badMessageDiffers[name] != "":
			t.Logf("%s: allowed difference (%s)\n  pgbench: %s\n  gbench:  %s", name, badMessageDiffers[name], want.msg, firstLine(err.Error()))
		case want.exit == "1" && !samePgbenchMessage(want.msg, err.Error()):
			t.Errorf("%s: message differs\n  pgbench: %s\n  gbench:  %s", name, want.msg, firstLine(err.Error()))
		}
	}
}

// badMessageDiffers lists the bad scripts whose message differs from
// pgbench's on purpose, and why.
var badMessageDiffers = map[string]string{
	"041-set-string-literal.sql":  "accepted: string literals are a gbench extension (strings.go)",
	"098-gset-then-aset.sql":      `pgbench says "\gset must follow" for a misplaced \aset; gbench names \aset`,
	"099-aset-alone.sql":          `pgbench says "\gset must follow" for a misplaced \aset; gbench names \aset`,
	"111-define-empty-value.sql":  "a -D error, worded by cmd/gbench (checked there)",
	"160-define-invalid-name.sql": "a -D error, worded by cmd/gbench (checked there)",
}

// pgbenchLocation is the place pgbench puts before a script error:
// "script.sql:LINE: " or "condition error in script "script.sql" command N: ".
var pgbenchLocation = regexp.MustCompile(`^(script\.sql:\d+: |condition error in script "script\.sql" command \d+: )`)

// gbenchLocation is gbench's "script.sql:LINE:COL: ".
var gbenchLocation = regexp.MustCompile(`^script\.sql:\d+(:\d+)?: `)

// samePgbenchMessage reports whether gbench's error carries pgbench's
// message intact: after the location (pgbench's file:line, gbench's
// file:line:col, which may name another line: gbench points at the
// offending word, pgbench at the command's first line or one after it),
// gbench's first line starts with pgbench's words; gbench may explain
// further after them.
func samePgbenchMessage(pgbench, gbench string) bool {
	p := pgbenchLocation.ReplaceAllString(unescapeGolden(pgbench), "")
	g := gbenchLocation.ReplaceAllString(firstLine(gbench), "")
	if strings.HasPrefix(p, "statement has too many arguments") {
		p, _, _ = strings.Cut(p, ": ") // pgbench adds the statement, gbench shows its line
	}
	return strings.HasPrefix(g, p)
}

// unescapeGolden undoes the golden files' escapes of \\ \n \r \t.
func unescapeGolden(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r", `\t`, "\t").Replace(s)
}

// badDefine applies the CLI's checks of -D options (gbench's cmd/gbench
// rejects the same definitions before running).
func badDefine(args []string) error {
	for i, a := range args {
		if a != "-D" || i+1 >= len(args) {
			continue
		}
		name, value, ok := strings.Cut(args[i+1], "=")
		if !ok || name == "" || value == "" || !ValidVarName([]byte(name)) {
			return fmt.Errorf("invalid variable definition %q", args[i+1])
		}
	}
	return nil
}

// modeOf returns the -M mode among a script's "-- args:".
func modeOf(args []string) Mode {
	for i, a := range args {
		if a == "-M" && i+1 < len(args) {
			m, _ := ParseMode(args[i+1])
			return m
		}
		if strings.HasPrefix(a, "--protocol=") {
			m, _ := ParseMode(strings.TrimPrefix(a, "--protocol="))
			return m
		}
	}
	return Simple
}

// badRecord is what pgbench did with a bad script: its exit status and
// its first error message.
type badRecord struct{ exit, msg string }

// readBadGolden returns what pgbench did with each bad script.
func readBadGolden(t *testing.T) map[string]badRecord {
	data, err := os.ReadFile("testdata/pgbench/bad.golden")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]badRecord{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) >= 3 {
			out[f[0]] = badRecord{exit: f[1], msg: f[2]}
		}
	}
	return out
}

// TestRandomSequencesMatchPgbench replays random.golden: for each seed and
// client, the values of every expression over 5 transactions, evaluated in
// the same order as pgbench evaluated them.
func TestRandomSequencesMatchPgbench(t *testing.T) {
	data, err := os.ReadFile("testdata/pgbench/random.golden")
	if err != nil {
		t.Fatal(err)
	}
	type run struct {
		section, seed string
		clients       int
		alone         string // the expression, for runs of one expression
	}
	exprs := map[run][]string{}
	want := map[run]map[string][]string{} // expr -> per client "v1 v2 ..."
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			t.Fatalf("bad line %q", line)
		}
		var clients int
		fmt.Sscan(f[2], &clients)
		expr := pgbenchref.Unescape(f[3])
		r := run{f[0], f[1], clients, ""}
		if f[0] == "alone" {
			r.alone = expr
		}
		if want[r] == nil {
			want[r] = map[string][]string{}
		}
		if _, seen := want[r][expr]; !seen {
			exprs[r] = append(exprs[r], expr)
		}
		want[r][expr] = append(want[r][expr], f[5])
	}
	if len(exprs) == 0 {
		t.Fatal("no sequences")
	}
	for r, list := range exprs {
		got := replaySequences(t, r.seed, r.clients, list)
		for i, e := range list {
			for c := 0; c < r.clients; c++ {
				if c < len(want[r][e]) && got[c][i] != want[r][e][c] {
					t.Errorf("%s seed %s client %d: %s = %s, pgbench %s", r.section, r.seed, c, e, got[c][i], want[r][e][c])
				}
			}
		}
	}
}

// replaySequences evaluates "\set seqK EXPR" for every expression in
// order, 5 transactions per client, and returns per client, per expression,
// the values joined by blanks.
func replaySequences(t *testing.T, seedText string, clients int, exprs []string) [][]string {
	var seed uint64
	if _, err := fmt.Sscan(seedText, &seed); err != nil {
		t.Fatalf("seed %q: %v", seedText, err)
	}
	var src strings.Builder
	for k, e := range exprs {
		fmt.Fprintf(&src, "\\set seq%d %s\n", k, e)
	}
	s, err := Parse("script.sql", src.String(), 1)
	if err != nil {
		t.Fatalf("%v", err)
	}
	p, err := Compile([]*Script{s}, Simple, []string{"i"})
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, clients)
	for c := 0; c < clients; c++ {
		env := pgbenchEnv(p, seed, clients, c)
		vals := make([][]string, len(exprs))
		for txn := 0; txn < 5; txn++ {
			for k, cmd := range s.Commands {
				if err := env.ExecSet(cmd.Set); err != nil {
					t.Fatalf("%s: %v", exprs[k], err)
				}
				b, _ := env.Vars.AppendText(nil, cmd.Set.Slot)
				vals[k] = append(vals[k], string(b))
			}
		}
		for k := range exprs {
			out[c] = append(out[c], strings.Join(vals[k], " "))
		}
	}
	return out
}
