package script

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// parser turns one script's text into commands.
type parser struct {
	src      *source
	script   *Script
	exprBase int // file offset of the expression being parsed
}

// Parse parses a pgbench script. name is what messages and reports call it
// (a file name, or "<builtin: ...>"). Problems pgbench rejects before
// running are returned as *Error.
func Parse(name, text string, weight int) (*Script, error) {
	p := &parser{src: newSource(name, text), script: &Script{Name: name, Weight: weight}}
	sc := &scanner{src: text}
	for {
		raw, ok := sc.next()
		if !ok {
			break
		}
		if !raw.meta {
			p.addSQL(raw)
			continue
		}
		cmd, err := p.parseMeta(raw)
		if err != nil {
			return nil, err
		}
		if cmd != nil {
			p.script.Commands = append(p.script.Commands, cmd)
		}
	}
	if len(p.script.Commands) == 0 {
		return nil, &Error{File: name, Msg: fmt.Sprintf("empty command list for script \"%s\"", name), Detail: "it holds no SQL or meta-command"}
	}
	if err := p.checkConditionals(); err != nil {
		return nil, err
	}
	return p.script, nil
}

// newCommand starts a command at a byte offset.
func (p *parser) newCommand(off int, name string) *Command {
	line, col := p.src.position(off)
	return &Command{Name: name, Line: line, Col: col, Next: -1, EndIf: -1}
}

func (p *parser) addSQL(raw rawCommand) {
	cmd := p.newCommand(raw.off, "SQL")
	cmd.Kind = CmdSQL
	cmd.SQL = &SQL{Text: raw.text}
	first := raw.text
	if i := strings.IndexAny(first, "\n\r"); i >= 0 {
		first = first[:i]
	}
	if len(first) > 127 {
		first = first[:127]
	}
	cmd.FirstLine = first
	p.script.Commands = append(p.script.Commands, cmd)
}

// parseExpr parses the expression in text[start:end] of the script.
func (p *parser) parseExpr(start, end int, cmdName string) (Node, error) {
	text := p.src.text[start:end]
	p.exprBase = start
	if se := firstExprError(text); se != nil {
		return nil, p.exprError(start, text, se, cmdName)
	}
	g, err := exprParser.ParseString(p.src.name, text)
	if err != nil {
		return nil, p.exprError(start, text, participleError(text, err), cmdName)
	}
	n, err := resolveExpr(g, p.atomBuilder(start))
	if err != nil {
		var se *exprSyntaxError
		if !errors.As(err, &se) {
			se = &exprSyntaxError{msg: err.Error()}
		}
		return nil, p.exprError(start, text, se, cmdName)
	}
	return n, nil
}

// exprError places an expression error in the file. As pgbench, it
// reports instead the last unexpected character after the error, if any.
func (p *parser) exprError(base int, text string, se *exprSyntaxError, cmdName string) error {
	if bad := lastBadCharacter(text, se.end); bad != nil {
		se = bad
	}
	e := p.src.errorAt(base+se.pos.Offset, "%s", se.msg).in(cmdName)
	e.Detail = se.detail
	return e
}

// atomBuilder converts grammar atoms to nodes, checking literals and
// function calls as pgbench's parser does.
func (p *parser) atomBuilder(base int) func(a *gAtom) (Node, error) {
	var build func(a *gAtom) (Node, error)
	build = func(a *gAtom) (Node, error) {
		switch {
		case a.Int != nil:
			i, err := strconv.ParseInt(*a.Int, 10, 64)
			if err != nil {
				return nil, &exprSyntaxError{pos: a.Pos, msg: fmt.Sprintf("bigint constant overflow (%s)", *a.Int)}
			}
			return &ConstNode{P: a.Pos, V: Int(i)}, nil
		case a.Float != nil:
			f, _, erange := parseCDouble([]byte(*a.Float))
			if erange {
				return nil, &exprSyntaxError{pos: a.Pos, msg: fmt.Sprintf("double constant overflow (%s)", *a.Float)}
			}
			return &ConstNode{P: a.Pos, V: Double(f)}, nil
		case a.Str != nil:
			return &ConstNode{P: a.Pos, V: Value{kind: KindString}, S: unquoteString(*a.Str)}, nil
		case a.Var != nil:
			return &VarNode{P: a.Pos, Name: (*a.Var)[1:], Slot: -1}, nil
		case a.Const != nil:
			switch *a.Const {
			case "null":
				return &ConstNode{P: a.Pos, V: Null()}, nil
			default:
				return &ConstNode{P: a.Pos, V: Bool(*a.Const == "true")}, nil
			}
		case a.Case != nil:
			return buildCase(a.Case, build)
		case a.Call != nil:
			return buildCall(a.Call, build)
		}
		return resolveExpr(a.Paren, build)
	}
	return build
}

func buildCase(c *gCase, build func(*gAtom) (Node, error)) (Node, error) {
	var args []Node
	for _, w := range c.Whens {
		cond, err := resolveExpr(w.Cond, build)
		if err != nil {
			return nil, err
		}
		then, err := resolveExpr(w.Then, build)
		if err != nil {
			return nil, err
		}
		args = append(args, cond, then)
	}
	var els Node = &ConstNode{P: c.Pos, V: Null()}
	if c.Else != nil {
		var err error
		if els, err = resolveExpr(c.Else, build); err != nil {
			return nil, err
		}
	}
	return call(c.Pos, fnCase, append(args, els)...), nil
}

// buildCall builds a function call; firstExprError has checked the name
// and the number of arguments.
func buildCall(c *gCall, build func(*gAtom) (Node, error)) (Node, error) {
	fn, ok := lookupFunc(c.Name)
	if !ok {
		return nil, &exprSyntaxError{pos: c.Pos, msg: fmt.Sprintf("unexpected function name (%s)", c.Name)}
	}
	args := make([]Node, 0, len(c.Args)+1)
	for _, a := range c.Args {
		n, err := resolveExpr(a, build)
		if err != nil {
			return nil, err
		}
		args = append(args, n)
	}
	if se := checkArity(c.Name, fn, len(args)); se != nil {
		se.pos = c.Pos
		return nil, se
	}
	if info := funcInfos[fn]; info.nargs == nargsHash && len(args) == 1 || info.nargs == nargsPermute && len(args) == 2 {
		args = append(args, &VarNode{P: c.Pos, Name: "default_seed", Slot: -1})
	}
	return call(c.Pos, fn, args...), nil
}

// checkArity checks the number of arguments of a call of fn, named name
// in the script, with pgbench's messages.
func checkArity(name string, fn funcID, n int) *exprSyntaxError {
	info := funcInfos[fn]
	name = strings.ToLower(name)
	switch {
	case info.nargs == nargsVariable && n == 0:
		return &exprSyntaxError{msg: fmt.Sprintf("at least one argument expected (%s)", name)}
	case info.nargs == nargsHash && (n < 1 || n > 2),
		info.nargs == nargsPermute && (n < 2 || n > 3),
		info.nargs == nargsPad && (n < 2 || n > 3),
		info.nargs >= 0 && n != info.nargs:
		return &exprSyntaxError{msg: fmt.Sprintf("unexpected number of arguments (%s)", name), detail: arity(info.nargs, n)}
	}
	return nil
}

func arity(nargs, got int) string {
	switch nargs {
	case nargsHash:
		return fmt.Sprintf("expected 1 or 2, got %d", got)
	case nargsPermute, nargsPad:
		return fmt.Sprintf("expected 2 or 3, got %d", got)
	}
	return fmt.Sprintf("expected %d, got %d", nargs, got)
}

// checkConditionals checks the \if structure statically, as pgbench does,
// and links each branch to the next one and to its \endif.
func (p *parser) checkConditionals() error {
	var stack []int // indexes of the open \if's current branch command
	var ifs []int   // the \if of each open level
	cmds := p.script.Commands
	for i, c := range cmds {
		switch c.Kind {
		case CmdIf:
			stack, ifs = append(stack, i), append(ifs, i)
		case CmdElif, CmdElse:
			if len(stack) == 0 {
				return p.condError(c, "\\%s without matching \\if", c.Name)
			}
			prev := cmds[stack[len(stack)-1]]
			if prev.Kind == CmdElse {
				return p.condError(c, "\\%s after \\else", c.Name)
			}
			prev.Next = i
			stack[len(stack)-1] = i
		case CmdEndif:
			if len(stack) == 0 {
				return p.condError(c, "\\endif without matching \\if")
			}
			cmds[stack[len(stack)-1]].Next = i
			for j := ifs[len(ifs)-1]; j >= 0 && j < i; j = cmds[j].Next {
				cmds[j].EndIf = i
			}
			stack, ifs = stack[:len(stack)-1], ifs[:len(ifs)-1]
		}
	}
	if len(stack) > 0 {
		return p.condError(cmds[ifs[len(ifs)-1]], "\\if without matching \\endif")
	}
	return nil
}

func (p *parser) condError(c *Command, format string, args ...any) error {
	return &Error{File: p.src.name, Line: c.Line, Col: c.Col, Msg: fmt.Sprintf(format, args...), Source: p.src.lineText(c.Line)}
}
