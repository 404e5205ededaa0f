package matrix

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/gbench/gbench/script"
)

// parseScript parses a path's script; a problem in text written inside a
// plan file is placed at its line there.
func parseScript(s *Script) (*script.Script, error) {
	sc, err := script.Parse(s.File, s.Text, 1)
	return sc, s.place(err)
}

// place moves a script error's line to where the script's text is in its
// plan file.
func (s *Script) place(err error) error {
	var se *script.Error
	if s.Line > 0 && errors.As(err, &se) && se.Line > 0 {
		if se.Line == 1 && se.Col > 0 {
			se.Col += s.Col - 1
			se.Source = blanks(s.Col-1) + se.Source
		}
		se.Line += s.Line - 1
	}
	return err
}

func blanks(n int) string {
	b := make([]byte, max(n, 0))
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}

// matrixVars are the variables the runner defines for every script:
// items (the dataset's rows) and keys (the list of keys, or the kv keys
// loaded in a plan without keys per request), sessions (the article's
// sessions loaded) and recordcount (the YCSB records loaded), these two in
// a plan without keys per request.
var matrixVars = []string{"items", "keys", "sessions", "recordcount"}

// compileScript checks that a script parses and compiles in mode, alone.
func compileScript(s *Script, mode script.Mode) (*script.Program, error) {
	sc, err := parseScript(s)
	if err != nil {
		return nil, err
	}
	prog, err := script.Compile([]*script.Script{sc}, mode, matrixVars)
	return prog, s.place(err)
}

// progKey identifies a compiled program.
type progKey struct {
	path, mix string
	keys      int
}

// program compiles, once, the program of a path, a mix and keys per
// request: each script the mix runs, with its weight, preceded by the
// line that sets :keys.
func (r *runner) program(p *Path, mix *Mix, keys int) (*script.Program, error) {
	k := progKey{p.Name, mixName(mix), keys}
	if prog, ok := r.programs[k]; ok {
		return prog, nil
	}
	weights := []Weight{{Script: p.Scripts[0].Name, Weight: 1}}
	if mix != nil {
		weights = mix.Weights
	}
	var scripts []*script.Script
	for _, w := range weights {
		if w.Weight <= 0 {
			continue
		}
		sc, err := parseScript(p.script(w.Script))
		if err != nil {
			return nil, err
		}
		if keys > 0 {
			if sc, err = r.withKeys(sc, keys); err != nil {
				return nil, err
			}
		}
		sc.Weight = w.Weight
		scripts = append(scripts, sc)
	}
	prog, err := script.Compile(scripts, p.Mode, matrixVars)
	if err != nil {
		return nil, err
	}
	r.programs[k] = prog
	return prog, nil
}

// keysLine is the line that sets :keys for n keys per request: the fixed
// keys 1..n, or n distinct random keys from 1..:items, or from 1..hot.
func keysLine(n int, random bool, hot int) string {
	switch {
	case hot > 0:
		return fmt.Sprintf(`\set keys random_keys(1, %d, %d)`, hot, n)
	case random:
		return fmt.Sprintf(`\set keys random_keys(1, :items, %d)`, n)
	}
	return `\set keys range(1, ` + strconv.Itoa(n) + ")"
}

// withKeys puts the line that sets :keys before sc's commands. The
// commands keep their lines; the conditional jumps move with them.
func (r *runner) withKeys(sc *script.Script, n int) (*script.Script, error) {
	pre, err := script.Parse(sc.Name, keysLine(n, r.cfg.RandomKeys, r.cfg.HotRows), 1)
	if err != nil {
		return nil, err
	}
	shift := len(pre.Commands)
	for _, c := range pre.Commands {
		c.Line = 0 // not a line of the user's file
	}
	for _, c := range sc.Commands {
		if c.Next >= 0 {
			c.Next += shift
		}
		if c.EndIf >= 0 {
			c.EndIf += shift
		}
	}
	sc.Commands = append(pre.Commands, sc.Commands...)
	return sc, nil
}

// mixName is a mix's name, "" for none.
func mixName(m *Mix) string {
	if m == nil {
		return ""
	}
	return m.Name
}

// contractCommand compiles the command the contract check runs for p: its
// ContractScript, or the last command of its read script that reads the
// list :keys.
func contractCommand(p *Path) (*checkCommand, error) {
	s := p.ContractScript
	if s == nil {
		if s = p.script(ReadScript); s == nil {
			s = &p.Scripts[0]
		}
	}
	prog, err := compileScript(s, script.Simple)
	if err != nil {
		return nil, err
	}
	slot := prog.Syms.Slot("keys")
	cmds := prog.Scripts[0].Commands
	for i := len(cmds) - 1; i >= 0; i-- {
		c := cmds[i]
		if (c.Kind == script.CmdSQL && p.Contract.SQL() || c.Kind == script.CmdRESP && !p.Contract.SQL()) && readsKeys(prog, c, slot) {
			return &checkCommand{prog: prog, cmd: c, keys: slot, items: prog.Syms.Slot("items")}, nil
		}
	}
	kind := "\\resp command"
	if p.Contract.SQL() {
		kind = "SQL statement"
	}
	return nil, fmt.Errorf("%q reads values back from an %s that reads :keys, and %s has none: add contract_script", p.Contract, kind, s.File)
}

// readsKeys reports whether command c reads the list variable in slot.
func readsKeys(prog *script.Program, c *script.Command, slot int) bool {
	if slot < 0 {
		return false
	}
	if c.Kind == script.CmdSQL {
		for _, s := range c.SQL.Params {
			if s == slot {
				return true
			}
		}
		return false
	}
	vs := script.NewVars(prog.Syms)
	vs.SetList(slot, []int64{1})
	_, one, _ := c.RESP.AppendArgs(vs, nil, nil)
	vs.SetList(slot, []int64{1, 2})
	_, two, _ := c.RESP.AppendArgs(vs, nil, nil)
	return len(two) > len(one)
}

// checkCommand is the command the contract check runs on a path, with the
// keys put in.
type checkCommand struct {
	prog        *script.Program
	cmd         *script.Command
	keys, items int // slots; items is -1 when the command does not read it
}

// vars are the command's variables for a request of keys.
func (c *checkCommand) vars(keys []int64, items int) *script.Vars {
	vs := script.NewVars(c.prog.Syms)
	vs.SetList(c.keys, keys)
	if c.items >= 0 {
		vs.SetInt(c.items, int64(items))
	}
	return vs
}

// sql is the statement for keys, the list written as '{1,2}'::int8[] as
// pgbench's simple mode writes it.
func (c *checkCommand) sql(keys []int64, items int) string {
	return string(c.cmd.SQL.AppendSimple(nil, c.vars(keys, items)))
}

// args is the \resp command's arguments for keys.
func (c *checkCommand) args(keys []int64, items int) []string {
	buf, ends, _ := c.cmd.RESP.AppendArgs(c.vars(keys, items), nil, nil)
	return splitArgs(buf, ends)
}
