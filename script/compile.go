package script

import (
	"fmt"
	"strconv"
)

// Mode is pgbench's query mode (-M).
type Mode uint8

// Query modes.
const (
	Simple Mode = iota
	Extended
	Prepared
)

// String returns the mode's name as pgbench spells it.
func (m Mode) String() string {
	return [...]string{"simple", "extended", "prepared"}[m]
}

// ParseMode parses "simple", "extended" or "prepared".
func ParseMode(s string) (Mode, bool) {
	for m := Simple; m <= Prepared; m++ {
		if m.String() == s {
			return m, true
		}
	}
	return 0, false
}

// Program is a compiled set of scripts: commands resolved to variable
// slots, SQL prepared for the query mode. It is immutable and shared by all
// clients of a run.
type Program struct {
	Scripts     []*Script
	Mode        Mode
	Syms        *Symbols
	TotalWeight int64
	// Slots of the variables gbench defines for every client.
	ClientID, Scale, RandomSeed, DefaultSeed int
	// HasSQL and HasRESP say which kinds of servers the scripts talk to.
	HasSQL, HasRESP bool
	// NumSQL is the number of SQL commands (their SQL.ID are 0..NumSQL-1).
	NumSQL int
}

// Compile links parsed scripts into a Program for a query mode. extraVars
// names variables defined from outside (-D) so they get slots. Compile takes
// ownership of the scripts.
func Compile(scripts []*Script, mode Mode, extraVars []string) (*Program, error) {
	p := &Program{Scripts: scripts, Mode: mode, Syms: newSymbols()}
	p.ClientID = p.Syms.intern("client_id")
	p.Scale = p.Syms.intern("scale")
	p.RandomSeed = p.Syms.intern("random_seed")
	p.DefaultSeed = p.Syms.intern("default_seed")
	for _, v := range extraVars {
		p.Syms.intern(v)
	}
	prep := 0
	for _, s := range scripts {
		p.TotalWeight += int64(s.Weight)
		for _, c := range s.Commands {
			if err := p.link(s, c); err != nil {
				return nil, err
			}
			if c.Kind == CmdSQL {
				c.SQL.ID = p.NumSQL
				p.NumSQL++
			}
			if c.Kind == CmdSQL && mode == Prepared {
				c.SQL.PrepName = "P_" + strconv.Itoa(prep)
				prep++
			}
		}
	}
	return p, nil
}

// link resolves one command's names to slots.
func (p *Program) link(s *Script, c *Command) error {
	in := p.Syms.intern
	switch c.Kind {
	case CmdSQL:
		p.HasSQL = true
		c.SQL = compileSQL(c.SQL.Text, in)
		if p.Mode != Simple && len(c.SQL.Params) > maxSQLParams {
			return &Error{File: s.Name, Line: c.Line, Col: c.Col, Msg: fmt.Sprintf("statement has too many arguments (maximum is %d)", maxSQLParams)}
		}
	case CmdSet:
		c.Set.Slot = in(c.Set.Var)
		linkExpr(c.Set.Expr, in)
	case CmdIf, CmdElif:
		linkExpr(c.Cond, in)
	case CmdSleep:
		if c.Sleep.Slot >= 0 {
			c.Sleep.Slot = in(c.Sleep.Var)
		}
	case CmdShell, CmdSetShell:
		if c.Kind == CmdSetShell {
			c.Shell.Slot = in(c.Shell.Var)
		}
		for i := range c.Shell.Words {
			if w := &c.Shell.Words[i]; w.Slot >= 0 {
				w.Slot = in(w.Text[1:])
			}
		}
	case CmdRESP:
		p.HasRESP = true
		for i := range c.RESP.Args {
			a := &c.RESP.Args[i]
			for j := range a.segs {
				if a.segs[j].slot >= 0 {
					a.segs[j].slot = in(a.refs[a.segs[j].slot])
				}
			}
		}
	}
	return nil
}

// linkExpr sets the slot of every variable reference.
func linkExpr(n Node, intern func(string) int) {
	switch n := n.(type) {
	case *VarNode:
		n.Slot = intern(n.Name)
	case *CallNode:
		for _, a := range n.Args {
			linkExpr(a, intern)
		}
	}
}
