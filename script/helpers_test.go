package script

import (
	"strings"
	"testing"
)

// evalText compiles "\set x <expr>" (after setup lines) and returns the text
// pgbench would substitute for :x, or the static (parse) or runtime error.
func evalText(t testing.TB, expr string, setup ...string) (val string, static, runtime error) {
	t.Helper()
	src := strings.Join(append(setup, `\set x `+expr), "\n") + "\n"
	s, err := Parse("t.sql", src, 1)
	if err != nil {
		return "", err, nil
	}
	p, err := Compile([]*Script{s}, Simple, nil)
	if err != nil {
		return "", err, nil
	}
	env := newTestEnv(p, 0)
	for _, c := range s.Commands {
		if err := env.ExecSet(c.Set); err != nil {
			return "", nil, err
		}
	}
	b, ok := env.Vars.AppendText(nil, p.Syms.Slot("x"))
	if !ok {
		return "", nil, nil
	}
	return string(b), nil, nil
}

// newTestEnv returns a client environment with pgbench's predefined
// variables and a seeded generator.
func newTestEnv(p *Program, seed uint64) *Env {
	env := &Env{Vars: NewVars(p.Syms)}
	env.Rand.Seed(seed)
	env.Vars.SetInt(p.ClientID, 0)
	env.Vars.SetInt(p.Scale, 1)
	env.Vars.SetInt(p.DefaultSeed, 0)
	env.Vars.SetInt(p.RandomSeed, int64(seed))
	return env
}
