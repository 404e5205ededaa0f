package script

import "testing"

// benchProgram compiles a one-line \set and an SQL command using it.
func benchProgram(b testing.TB) (*Program, *Env, *Command, *Command) {
	s, err := Parse("b.sql", "\\set k random(1, 100000)\nSELECT abalance FROM pgbench_accounts WHERE aid = :k;\n", 1)
	if err != nil {
		b.Fatal(err)
	}
	p, err := Compile([]*Script{s}, Simple, nil)
	if err != nil {
		b.Fatal(err)
	}
	return p, newTestEnv(p, 1), s.Commands[0], s.Commands[1]
}

// BenchmarkSetRandomAndSubstitute evaluates \set k random(1, 100000) and
// substitutes :k into the SQL text, as a client does each transaction.
func BenchmarkSetRandomAndSubstitute(b *testing.B) {
	_, env, set, sql := benchProgram(b)
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		if err := env.ExecSet(set.Set); err != nil {
			b.Fatal(err)
		}
		buf = sql.SQL.AppendSimple(buf[:0], env.Vars)
	}
}

// TestSetRandomAllocatesNothing is the same as a test that can fail.
func TestSetRandomAllocatesNothing(t *testing.T) {
	_, env, set, sql := benchProgram(t)
	buf := make([]byte, 0, 128)
	allocs := testing.AllocsPerRun(1000, func() {
		if err := env.ExecSet(set.Set); err != nil {
			t.Fatal(err)
		}
		buf = sql.SQL.AppendSimple(buf[:0], env.Vars)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per \\set and substitution", allocs)
	}
}
