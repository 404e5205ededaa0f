package script

import (
	"math"
	"testing"
)

func TestEvalValues(t *testing.T) {
	tests := []struct {
		expr string
		want string
	}{
		{"1 + 2 * 3", "7"}, // precedence
		{"-9223372036854775808", "-9223372036854775808"}, // INT64_MIN literal
		{"-0.0", "0"},         // unary minus is 0 - x
		{"-1 * 0.0", "-0"},    // a real negative zero
		{"1/0.0", "Infinity"}, // C's inf, PostgreSQL's spelling
		{"-1/0.0", "-Infinity"},
		{"sqrt(-1)", "NaN"},
		{"1e15", "1e+15"}, // %.15g switches to exponent at 15 digits
		{"123456789012345.0", "123456789012345"},
		{"123456789012345678.0", "1.23456789012346e+17"},
		{"0.1 + 0.2", "0.3"}, // 15 significant digits
		{"1e-5", "1e-05"},    // two exponent digits
		{"0.0001", "0.0001"},
		{"~1 + 2", "-4"},               // ~ takes 1 + 2 as its operand
		{"1 IS NULL IS NULL", "false"}, // postfix IS may repeat
		{"int(2.5)", "2"},              // rint: half to even
		{"int(3.5)", "4"},
		{"int(-2.5)", "-2"},
		{"5 % -1", "0"},
		{"abs(-9223372036854775807-1)", "-9223372036854775808"},
		{"null = null", "NULL"},
		{"null and false", "NULL"},
		{"false and null", "false"},
		{"2 > 1", "true"},
		{"case when false then 1 when true then 2 end", "2"},
		{"case when false then 1 end", "NULL"},
		{"5 / 2", "2"},
		{"5.0 / 2", "2.5"},
		{"-7 % 3", "-1"},
		{"1 << 63", "-9223372036854775808"},
		{"least(3, 1.5, 2)", "1.5"},
		{"greatest(3, 1, 2)", "3"},
		{"pi()", "3.14159265358979"},
		{"pow(2, 10)", "1024"},
		{"hash_fnv1a(1, 5)", "3232700585171816769"},   // pgbench 15
		{"hash_murmur2(1, 5)", "3896754574207142840"}, // pgbench 15
		{"permute(3, 10, 5)", "9"},                    // pgbench 15
		{"1 = 1 AND NOT 2 = 3", "true"},
		{"NOT 1 IS NULL", "true"},
	}
	for _, tt := range tests {
		got, static, runtime := evalText(t, tt.expr)
		if static != nil || runtime != nil {
			t.Errorf("%s: unexpected error: %v %v", tt.expr, static, runtime)
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		expr    string
		static  bool
		message string
	}{
		{"1 < 2 < 3", true, "syntax error"},           // comparisons do not chain
		{"9223372036854775808", true, "syntax error"}, // only after a minus, as pgbench
		{"1e-310", true, "double constant overflow"},  // strtod's ERANGE
		{"99999999999999999999", true, "bigint constant overflow"},
		{"foo(1)", true, "unexpected function name (foo)"},
		{"abs(1, 2)", true, "unexpected number of arguments"},
		{"least()", true, "at least one argument"},
		{"- NOT 1 = 2", false, "cannot coerce boolean to int"}, // parses as -(NOT (1 = 2))
		{"true + 1", false, "cannot coerce boolean to int"},
		{"1 = NOT 2 = 3", false, "cannot coerce boolean to int"},
		{":y", false, `undefined variable "y"`},
		{"9223372036854775807 + 1", false, "bigint add out of range"},
		{"1 / 0", false, "division by zero"},
		{"random(2, 1)", false, "empty range given to random"},
		{"least(1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17)", false, "too many function arguments"},
		{"1 + range(1, 2)", true, "returns a list"},
	}
	for _, tt := range tests {
		_, static, runtime := evalText(t, tt.expr)
		err := runtime
		if tt.static {
			err = static
		}
		if err == nil {
			t.Errorf("%s: expected a %s error, got static=%v runtime=%v", tt.expr, kindName(tt.static), static, runtime)
			continue
		}
		if !contains(err.Error(), tt.message) {
			t.Errorf("%s: error %q does not contain %q", tt.expr, err, tt.message)
		}
	}
}

// TestTextVariablesAreNotNull: a \resp reply holding text that is not a
// number can be tested with IS NULL, so that scripts can branch on a cache
// miss. Other text variables fail there, as in pgbench.
func TestTextVariablesAreNotNull(t *testing.T) {
	src := "\\set a :r IS NULL\n\\set b :r IS NOT NULL\n\\set c :r ISNULL\n\\set d :n IS NULL\n"
	s, err := Parse("t.sql", src, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile([]*Script{s}, Simple, []string{"r", "n"})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(p, 1)
	env.Vars.SetReplyText(p.Syms.Slot("r"), []byte("7-8f14e45f"))
	env.Vars.Set(p.Syms.Slot("n"), Null())
	for _, c := range s.Commands {
		if err := env.ExecSet(c.Set); err != nil {
			t.Fatalf("%s: %v", c.FirstLine, err)
		}
	}
	for name, want := range map[string]string{"a": "false", "b": "true", "c": "false", "d": "true"} {
		if got, _ := env.Vars.AppendText(nil, p.Syms.Slot(name)); string(got) != want {
			t.Errorf(":%s = %s, want %s", name, got, want)
		}
	}
	s2, _ := Parse("t.sql", "\\set e :r + 1\n", 1)
	p2, _ := Compile([]*Script{s2}, Simple, nil)
	env2 := newTestEnv(p2, 1)
	env2.Vars.SetReplyText(p2.Syms.Slot("r"), []byte("x"))
	if err := env2.ExecSet(s2.Commands[0].Set); err == nil {
		t.Errorf("text in arithmetic must still fail, as in pgbench")
	}
}

func kindName(static bool) string {
	if static {
		return "static"
	}
	return "runtime"
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestRandomKeys checks that random_keys draws distinct keys in range, and
// that every key and every position is equally likely, for a sparse draw
// (rejection) and a dense one (Floyd's algorithm): each key's count over
// 20000 draws must be within 6 standard deviations of its expectation
// (deterministic for the seed, so the test cannot flake).
func TestRandomKeys(t *testing.T) {
	for _, tc := range []struct{ count, n int }{{16, 64}, {60, 64}, {64, 64}} {
		src := "\\set k random_keys(1, " + Int(int64(tc.n)).String() + ", " + Int(int64(tc.count)).String() + ")\n"
		s, err := Parse("t.sql", src, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := Compile([]*Script{s}, Simple, nil)
		env := newTestEnv(p, 42)
		const draws = 20000
		counts := make([]int, tc.n+1)
		first := make([]int, tc.n+1)
		for d := 0; d < draws; d++ {
			if err := env.ExecSet(s.Commands[0].Set); err != nil {
				t.Fatal(err)
			}
			xs := env.Vars.List(p.Syms.Slot("k"))
			if len(xs) != tc.count {
				t.Fatalf("%d keys, want %d", len(xs), tc.count)
			}
			seen := map[int64]bool{}
			for _, x := range xs {
				if x < 1 || x > int64(tc.n) || seen[x] {
					t.Fatalf("key %d out of range or repeated in %v", x, xs)
				}
				seen[x] = true
				counts[x]++
			}
			first[xs[0]]++
		}
		pk := float64(tc.count) / float64(tc.n)
		want, sd := draws*pk, math.Sqrt(draws*pk*(1-pk))
		wantFirst, sdFirst := float64(draws)/float64(tc.n), math.Sqrt(float64(draws)/float64(tc.n))
		for k := 1; k <= tc.n; k++ {
			if sd > 0 && math.Abs(float64(counts[k])-want) > 6*sd {
				t.Errorf("%d of %d: key %d drawn %d times, expected %.0f ± %.0f", tc.count, tc.n, k, counts[k], want, sd)
			}
			if math.Abs(float64(first[k])-wantFirst) > 6*sdFirst {
				t.Errorf("%d of %d: key %d first %d times, expected %.0f ± %.0f", tc.count, tc.n, k, first[k], wantFirst, sdFirst)
			}
		}
	}
}
