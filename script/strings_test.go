package script

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestStringValues(t *testing.T) {
	tests := []struct {
		expr string
		want string
	}{
		{"'abc'", "abc"},
		{"''", ""},
		{"'it''s'", "it's"},
		{"'a' || 'b' || 'c'", "abc"},
		{"'n=' || 1 + 2", "n=3"},        // || binds looser than +
		{"'x' || 2 * 3 = 'x6'", "true"}, // and tighter than =
		{"1 || 2", "12"},
		{"'a' || 1.5 || true", "a1.5true"},
		{"'a' || null", "NULL"},
		{"concat('a', null, 'b')", "ab"},
		{"concat(null)", ""},
		{"length('héllo')", "6"}, // bytes
		{"length(12345)", "5"},
		{"lpad('7', 4, '0')", "0007"},
		{"lpad(42, 5)", "   42"},
		{"lpad('abcdef', 3, 'x')", "abc"}, // cut to the length, as PostgreSQL
		{"lpad('a', 6, 'xy')", "xyxyxa"},
		{"rpad('a', 6, 'xy')", "axyxyx"},
		{"rpad('ab', 4, '')", "ab"},
		{"repeat('ab', 3)", "ababab"},
		{"repeat('ab', -1)", ""},
		{"'a' < 'b'", "true"},
		{"'b' <= 'a'", "false"},
		{"'a' <> 'a'", "false"},
		{"'b' > 'a'", "true"},
		{"'a' IS NULL", "false"},
		{"case when 'a' = 'a' then 'yes' else 'no' end", "yes"},
		{"length(random_string(37))", "37"},
		{"length(uuid(7))", "36"},
		{"uuid(1) = uuid(1)", "true"},
		{"uuid(1) = uuid(2)", "false"},
	}
	for _, tt := range tests {
		got, static, runtime := evalText(t, tt.expr)
		if static != nil || runtime != nil {
			t.Errorf("%s: unexpected error: %v %v", tt.expr, static, runtime)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

func TestStringVariables(t *testing.T) {
	got, static, runtime := evalText(t, ":a || '-' || :b || '-' || length(:a)",
		`\set a 'xy'`, `\set b :a || :a`, `\set a :a || 'z'`)
	if static != nil || runtime != nil || got != "xyz-xyxy-3" {
		t.Fatalf("got %q, %v, %v", got, static, runtime)
	}
}

func TestStringErrors(t *testing.T) {
	tests := []struct {
		expr, setup string
		static      bool
		want        string
	}{
		{"'abc", "", true, "t.sql:1:8: unterminated quoted string"},
		{"'a' 'b'", "", true, "syntax error"},
		{"'a' + 1", "", false, "cannot coerce string to int"},
		{"1.5 * 'a'", "", false, "cannot coerce string to double"},
		{"'a' = 1", "", false, "cannot compare string with int"},
		{"abs('a')", "", false, "cannot coerce string to double"},
		{"random('a', 2)", "", false, "cannot coerce string to int"},
		{"'a' and true", "", false, "cannot coerce string to boolean"},
		{"random_string(-1)", "", false, "random_string(): length must be between 0 and 1048576 (not -1)"},
		{"random_string(1048577)", "", false, "length must be between"},
		{"repeat('ab', 1000000)", "", false, "longer than the maximum"},
		{"lpad('a')", "", true, "unexpected number of arguments (lpad)"},
		{"uuid()", "", true, "unexpected number of arguments (uuid)"},
		{"uuid('a')", "", false, "uuid(): cannot coerce string to int"},
		{"lpad('a', 2.5e10)", "", false, "lpad(): length must be between"},
		{":v || :v", `\set v repeat('x', 600000)`, false, "string longer than the maximum"},
	}
	for _, tt := range tests {
		var setup []string
		if tt.setup != "" {
			setup = []string{tt.setup}
		}
		_, static, runtime := evalText(t, tt.expr, setup...)
		err := runtime
		if tt.static {
			err = static
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got static %v, runtime %v; want %q", tt.expr, static, runtime, tt.want)
		}
	}
}

func TestCondOnStringFails(t *testing.T) {
	s, err := Parse("t.sql", "\\if 'a'\n\\endif\n", 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Compile([]*Script{s}, Simple, nil)
	env := newTestEnv(p, 0)
	if _, err := env.Cond(s.Commands[0].Cond); err == nil || !strings.Contains(err.Error(), "cannot coerce string to boolean") {
		t.Fatalf("\\if 'a': %v", err)
	}
}

var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestUUIDLayout: uuid(n) is a version 8, variant 0b10 UUID (RFC 9562), the
// same for the same n whatever the seed, and distinct for distinct n.
func TestUUIDLayout(t *testing.T) {
	seen := map[string]int64{}
	for _, n := range []int64{0, 1, 2, -1, 1 << 62, -1 << 63, 1<<63 - 1} {
		seen[string(AppendUUID(nil, n))] = n
	}
	for n := int64(0); n < 200000; n++ {
		u := string(AppendUUID(nil, n))
		if !uuidForm.MatchString(u) {
			t.Fatalf("uuid(%d) = %s: not a version 8 UUID", n, u)
		}
		if m, ok := seen[u]; ok && m != n {
			t.Fatalf("uuid(%d) = uuid(%d) = %s", n, m, u)
		}
		seen[u] = n
	}
	// The value is pinned: the loader and the scripts of every gbench
	// version must agree on the keys of a loaded keyspace.
	if u := string(AppendUUID(nil, 1)); u != "680aaf68-404c-8b53-a595-9f7ca49776e9" {
		t.Errorf("uuid(1) = %s, changed", u)
	}
	a, _, _ := evalText(t, "uuid(5)")
	if a != string(AppendUUID(nil, 5)) {
		t.Errorf("uuid(5) in a script = %s, AppendUUID = %s", a, AppendUUID(nil, 5))
	}
}

// TestRandomStringRepeats: random_string draws from the client's sequence,
// so the same seed gives the same strings, another seed others, and the
// characters cover the alphabet roughly evenly.
func TestRandomStringRepeats(t *testing.T) {
	draw := func(seed uint64) []byte {
		var r PRNG
		r.Seed(seed)
		return appendRandomString(nil, &r, 64000)
	}
	a, b, c := draw(1), draw(1), draw(2)
	if !bytes.Equal(a, b) || bytes.Equal(a, c) {
		t.Fatal("random_string does not follow the seed")
	}
	var counts [256]int
	for _, ch := range a {
		counts[ch]++
	}
	for _, ch := range []byte(randomAlphabet) {
		// 1000 expected per character; a binomial(64000, 1/64) count is
		// within 1000 ± 6 sigma (sigma = 31) but for a broken draw.
		if n := counts[ch]; n < 1000-6*31 || n > 1000+6*31 {
			t.Errorf("character %q drawn %d times in 64000, expected about 1000", ch, n)
		}
	}
	if n := len(a); n != 64000 {
		t.Fatalf("%d characters", n)
	}
}

// TestStringSubstitution: a string variable is one value in every query
// mode: a quoted literal in simple mode, the raw text as a parameter in
// the others, and in \resp arguments.
func TestStringSubstitution(t *testing.T) {
	src := "\\set k 'o''k\\' || uuid(3)\nSELECT :k, :n;\n\\resp SET :k x\n"
	s, err := Parse("t.sql", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile([]*Script{s}, Simple, []string{"n"})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(p, 0)
	env.Vars.SetText(p.Syms.Slot("n"), []byte("text"))
	if err := env.ExecSet(s.Commands[0].Set); err != nil {
		t.Fatal(err)
	}
	u := string(AppendUUID(nil, 3))
	got := string(s.Commands[1].SQL.AppendSimple(nil, env.Vars))
	if want := "SELECT E'o''k\\\\" + u + "', text;"; got != want {
		t.Errorf("simple: %q, want %q", got, want)
	}
	param, _ := env.Vars.AppendText(nil, p.Syms.Slot("k"))
	if want := "o'k\\" + u; string(param) != want {
		t.Errorf("parameter: %q, want %q", param, want)
	}
	if !env.Vars.IsString(p.Syms.Slot("k")) || env.Vars.IsString(p.Syms.Slot("n")) {
		t.Error("IsString")
	}
	// In \resp, a string with blanks is one argument: SET, the key, x.
	if err := env.ExecSet(&SetCommand{Var: "k", Slot: p.Syms.Slot("k"), Expr: &ConstNode{V: Value{kind: KindString}, S: "a b"}}); err != nil {
		t.Fatal(err)
	}
	buf, ends, err := s.Commands[2].RESP.AppendArgs(env.Vars, nil, nil)
	if err != nil || len(ends) != 3 || string(buf[ends[0]:ends[1]]) != "a b" {
		t.Errorf("\\resp SET :k x: %q %v %v", buf, ends, err)
	}
}

func TestAppendSQLLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"": "''", "abc": "'abc'", "a'b": "'a''b'", `a\b`: `E'a\\b'`, `'\`: `E'''\\'`,
	} {
		if got := string(AppendSQLLiteral(nil, []byte(in))); got != want {
			t.Errorf("%q: %s, want %s", in, got, want)
		}
	}
}

// TestStringSetAllocatesLittle: building a session-like value each
// transaction reuses the client's buffers once they have grown.
func TestStringSetAllocatesLittle(t *testing.T) {
	src := "\\set k uuid(random(1, 1000))\n" +
		"\\set v '{\"id\":\"' || :k || '\",\"n\":' || random(1, 9) || ',\"pad\":\"' || random_string(random_gaussian(10, 100, 2.5)) || '\"}'\n" +
		"SELECT :k, :v;\n"
	s, err := Parse("t.sql", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Compile([]*Script{s}, Simple, nil)
	env := newTestEnv(p, 1)
	buf := make([]byte, 0, 512)
	round := func() {
		for _, c := range s.Commands[:2] {
			if err := env.ExecSet(c.Set); err != nil {
				t.Fatal(err)
			}
		}
		buf = s.Commands[2].SQL.AppendSimple(buf[:0], env.Vars)
	}
	for i := 0; i < 100; i++ {
		round() // grow the buffers to the largest value
	}
	if n := testing.AllocsPerRun(1000, round); n != 0 {
		t.Errorf("%.2f allocations per transaction building strings", n)
	}
}
