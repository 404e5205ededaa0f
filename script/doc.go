// Package script is pgbench's script language: Parse reads a script into
// an AST, Compile turns scripts into one immutable Program, and the
// evaluator runs its expressions against a client's Vars.
//
// A reader's map of the package:
//
//   - scan.go: the line scanner. SQL runs until an unquoted ';' (a '\;'
//     joins commands into one), a meta-command until the end of its line.
//   - exprlex.go, exprgrammar.go, prec.go: the expression language, parsed
//     with participle (a precedence ladder); exprerr.go rewrites its errors
//     into words a user knows, "file:line:col: message" with the line and
//     a caret.
//   - meta.go, sql.go, respcmd.go: \set, \sleep, \gset, \shell and the
//     others; SQL with its :variables as parameters; \resp commands.
//   - compile.go: variables to slots (Symbols), functions to builtins,
//     SQL to parameterised text per query mode (Mode); the Program a
//     benchmark runs. A Program is immutable and safe to share.
//   - eval.go, funcs.go, value.go, ops.go, hash.go, prng.go: evaluation with
//     pgbench's semantics (integer overflow, double formatting, hashes,
//     random, random_zipfian, permute) and its PRNG, so that a seed gives
//     pgbench's sequence.
//   - vars.go: a client's variables, slot by slot; Vars are owned by one
//     client and not safe for concurrent use.
//
// The package imports no other gbench package, no pgx and no RESP code:
// drivers and the engine import it, never the reverse.
package script
