package script

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The grammar below describes the shape of a pgbench expression as a flat
// sequence: units (prefix operators, an operand, postfix operators) joined by
// infix operators. Precedence and associativity are then resolved by
// resolve (prec.go) exactly as pgbench's bison grammar resolves them, which a
// precedence ladder of grammar rules cannot do: in bison a prefix operator's
// operand extends as far as operators binding tighter than it allow, so
// "- NOT 1 = 2" is -(NOT (1 = 2)) and "~1 + 2" is ~(1 + 2).

type gExpr struct {
	Head *gUnit   `parser:"@@"`
	Tail []*gInfx `parser:"@@*"`
}

type gInfx struct {
	Pos  lexer.Position
	Op   string `parser:"@( '||' | '<>' | '!=' | '<=' | '>=' | '<<' | '>>' | '=' | '<' | '>' | '+' | '-' | '*' | '/' | '%' | '&' | '|' | '#' | 'and' | 'or' )"`
	Unit *gUnit `parser:"@@"`
}

type gUnit struct {
	Prefix  []*gPrefix  `parser:"@@*"`
	Atom    *gAtom      `parser:"@@"`
	Postfix []*gPostfix `parser:"@@*"`
}

type gPrefix struct {
	Pos lexer.Position
	Op  string `parser:"@( '+' | '-' | '~' | 'not' )"`
}

type gPostfix struct {
	Pos     lexer.Position
	IsNull  bool    `parser:"  @'isnull'"`
	NotNull bool    `parser:"| @'notnull'"`
	Not     bool    `parser:"| 'is' @'not'?"`
	What    *string `parser:"  @( 'null' | 'true' | 'false' )"`
}

type gAtom struct {
	Pos    lexer.Position
	Float  *string `parser:"  @Float"`
	Int    *string `parser:"| @Int"`
	MaxInt *string `parser:"| @MaxIntPlusOne"`
	Str    *string `parser:"| @String"`
	Var    *string `parser:"| @Var"`
	Const  *string `parser:"| @( 'null' | 'true' | 'false' )"`
	Case   *gCase  `parser:"| @@"`
	Call   *gCall  `parser:"| @@"`
	Paren  *gExpr  `parser:"| '(' @@ ')'"`
}

type gCall struct {
	Pos  lexer.Position
	Name string   `parser:"@Ident '('"`
	Args []*gExpr `parser:"( @@ ( ',' @@ )* )? ')'"`
}

type gCase struct {
	Pos   lexer.Position
	Whens []*gWhen `parser:"'case' @@+"`
	Else  *gExpr   `parser:"( 'else' @@ )? 'end'"`
}

type gWhen struct {
	Cond *gExpr `parser:"'when' @@"`
	Then *gExpr `parser:"'then' @@"`
}

// exprParser is built once; participle parsers are safe for concurrent use.
var exprParser = participle.MustBuild[gExpr](
	participle.Lexer(exprLexDef{}),
	participle.UseLookahead(2),
)
