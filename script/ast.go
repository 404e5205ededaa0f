package script

import "github.com/alecthomas/participle/v2/lexer"

// Node is a node of an expression tree. Operators are calls of internal
// functions, as in pgbench, so that evaluation order and types match it.
type Node interface {
	Pos() lexer.Position
}

// ConstNode is a literal. A string literal (gbench) has V of KindString
// and its text in S; evaluating it copies S into the Env.
type ConstNode struct {
	P lexer.Position
	V Value
	S string
}

// VarNode is a :name reference; Slot is set by Compile.
type VarNode struct {
	P    lexer.Position
	Name string
	Slot int
}

// CallNode is a function or operator applied to arguments.
type CallNode struct {
	P    lexer.Position
	Fn   funcID
	Args []Node
}

// Pos returns the position of the literal.
func (n *ConstNode) Pos() lexer.Position { return n.P }

// Pos returns the position of the reference.
func (n *VarNode) Pos() lexer.Position { return n.P }

// Pos returns the position of the function name or operator.
func (n *CallNode) Pos() lexer.Position { return n.P }
