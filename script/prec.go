package script

import (
	"fmt"
	"math"

	"github.com/alecthomas/participle/v2/lexer"
)

// Operator precedence levels, lowest first, as in pgbench's exprparse.y.
const (
	precNone = iota
	precOr
	precAnd
	precNot
	precIs // IS, ISNULL, NOTNULL
	precCmp
	precBit // | # & << >> and prefix ~
	precAdd
	precMul
	precUnary
)

type assoc uint8

const (
	assocLeft assoc = iota
	assocRight
	assocNon
)

// infixPrec gives each infix operator's level and associativity.
var infixPrec = map[string]struct {
	level int
	assoc assoc
}{
	"or": {precOr, assocLeft}, "and": {precAnd, assocLeft},
	"=": {precCmp, assocNon}, "<>": {precCmp, assocNon}, "!=": {precCmp, assocNon},
	"<": {precCmp, assocNon}, "<=": {precCmp, assocNon}, ">": {precCmp, assocNon}, ">=": {precCmp, assocNon},
	"|": {precBit, assocLeft}, "||": {precBit, assocLeft}, "#": {precBit, assocLeft}, "&": {precBit, assocLeft},
	"<<": {precBit, assocLeft}, ">>": {precBit, assocLeft},
	"+": {precAdd, assocLeft}, "-": {precAdd, assocLeft},
	"*": {precMul, assocLeft}, "/": {precMul, assocLeft}, "%": {precMul, assocLeft},
}

// itemKind classifies the flat items of an expression.
type itemKind uint8

const (
	itemOperand itemKind = iota
	itemPrefix
	itemPostfix
	itemInfix
)

type item struct {
	kind    itemKind
	op      string
	pos     lexer.Position
	atom    *gAtom
	postfix *gPostfix
}

// flatten turns the grammar's tree of units into a flat item list.
func flatten(e *gExpr) []item {
	items := flattenUnit(nil, e.Head)
	for _, t := range e.Tail {
		items = append(items, item{kind: itemInfix, op: t.Op, pos: t.Pos})
		items = flattenUnit(items, t.Unit)
	}
	return items
}

func flattenUnit(items []item, u *gUnit) []item {
	for _, p := range u.Prefix {
		items = append(items, item{kind: itemPrefix, op: p.Op, pos: p.Pos})
	}
	items = append(items, item{kind: itemOperand, atom: u.Atom, pos: u.Atom.Pos})
	for _, p := range u.Postfix {
		items = append(items, item{kind: itemPostfix, pos: p.Pos, postfix: p})
	}
	return items
}

// resolver applies bison's precedence rules to a flat item list.
type resolver struct {
	items []item
	next  int
	build func(a *gAtom) (Node, error)
}

// resolveExpr converts a parsed expression into a tree.
func resolveExpr(e *gExpr, build func(a *gAtom) (Node, error)) (Node, error) {
	r := &resolver{items: flatten(e), build: build}
	return r.parse(precNone, assocLeft)
}

// parse parses an expression that is the right operand of a rule with
// precedence level and associativity a: it keeps absorbing operators for
// as long as bison would shift them rather than reduce the rule.
func (r *resolver) parse(level int, a assoc) (Node, error) {
	left, err := r.operand()
	if err != nil {
		return nil, err
	}
	for r.next < len(r.items) {
		it := r.items[r.next]
		opLevel, opAssoc := precIs, assocNon
		if it.kind == itemInfix {
			p := infixPrec[it.op]
			opLevel, opAssoc = p.level, p.assoc
		}
		switch {
		case opLevel < level, opLevel == level && a == assocLeft:
			return left, nil
		case opLevel == level && a == assocNon:
			return nil, syntaxErrorAt(it.pos, it.op)
		}
		r.next++
		if it.kind == itemPostfix {
			left = postfixNode(left, it)
			continue
		}
		right, err := r.parse(opLevel, opAssoc)
		if err != nil {
			return nil, err
		}
		left = infixNode(it, left, right)
	}
	return left, nil
}

// operand parses prefix operators and the operand they apply to.
func (r *resolver) operand() (Node, error) {
	it := r.items[r.next]
	r.next++
	switch it.kind {
	case itemOperand:
		if it.atom.MaxInt != nil {
			return nil, &exprSyntaxError{pos: it.pos, msg: "syntax error",
				detail: fmt.Sprintf("%s is beyond bigint; only -%[1]s may be written", *it.atom.MaxInt)}
		}
		return r.build(it.atom)
	case itemPrefix:
		return r.prefix(it)
	}
	return nil, syntaxErrorAt(it.pos, it.op)
}

func (r *resolver) prefix(it item) (Node, error) {
	if it.op == "-" && r.next < len(r.items) && r.items[r.next].kind == itemOperand && r.items[r.next].atom.MaxInt != nil {
		r.next++
		return &ConstNode{P: it.pos, V: Int(math.MinInt64)}, nil
	}
	var level int
	var a assoc
	switch it.op {
	case "+", "-":
		level, a = precUnary, assocRight
	case "~":
		level, a = precBit, assocLeft
	default: // not
		level, a = precNot, assocRight
	}
	x, err := r.parse(level, a)
	if err != nil {
		return nil, err
	}
	switch it.op {
	case "+":
		return x, nil
	case "-":
		return call(it.pos, fnSub, &ConstNode{P: it.pos, V: Int(0)}, x), nil
	case "~":
		return call(it.pos, fnBitXor, &ConstNode{P: it.pos, V: Int(-1)}, x), nil
	}
	return call(it.pos, fnNot, x), nil
}

// infixNode builds an operator call the way pgbench does: a > b is b < a,
// a >= b is b <= a, so the right operand is evaluated first.
func infixNode(it item, l, r Node) Node {
	switch it.op {
	case ">":
		return call(it.pos, fnLt, r, l)
	case ">=":
		return call(it.pos, fnLe, r, l)
	}
	return call(it.pos, infixFuncs[it.op], l, r)
}

var infixFuncs = map[string]funcID{
	"or": fnOr, "and": fnAnd, "=": fnEq, "<>": fnNe, "!=": fnNe, "<": fnLt, "<=": fnLe,
	"|": fnBitOr, "||": fnConcatOp, "#": fnBitXor, "&": fnBitAnd, "<<": fnLShift, ">>": fnRShift,
	"+": fnAdd, "-": fnSub, "*": fnMul, "/": fnDiv, "%": fnMod,
}

// postfixNode builds IS [NOT] NULL/TRUE/FALSE, ISNULL and NOTNULL.
func postfixNode(x Node, it item) Node {
	p := it.postfix
	var what Value
	switch {
	case p.IsNull || p.NotNull:
		what = Null()
	case *p.What == "null":
		what = Null()
	default:
		what = Bool(*p.What == "true")
	}
	n := call(it.pos, fnIs, x, &ConstNode{P: it.pos, V: what})
	if p.NotNull || p.Not {
		return call(it.pos, fnNot, n)
	}
	return n
}

func call(pos lexer.Position, fn funcID, args ...Node) *CallNode {
	return &CallNode{P: pos, Fn: fn, Args: args}
}
