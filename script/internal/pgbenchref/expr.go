package pgbenchref

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Kind classifies how pgbench treated an expression.
type Kind string

// The kinds of ExprResult, as written in exprs.golden.
const (
	Value   Kind = "value"   // evaluated; Text is what pgbench substitutes for the variable
	Static  Kind = "static"  // rejected when the script was parsed (exit 1)
	Runtime Kind = "runtime" // failed while the client ran (exit 2)
)

// ExprResult is pgbench's verdict on one expression.
type ExprResult struct {
	Kind Kind
	// Text is the substituted value for Value. For errors it is the first
	// error line without "pgbench: error: " and, for static errors, without
	// the "script.sql:LINE: " location that depends on this harness.
	Text string
	// Column is, for static errors that pgbench marks with "^ error found
	// here", the 1-based column within the expression the caret points at
	// (one past the end for errors at end of input), else 0.
	Column int
	Error  string   // the whole error with its context lines, "" for Value
	Debug  []string // debug() lines printed while evaluating
}

// Let is one variable definition before an expression (see SplitLets).
type Let struct {
	Name   string
	Value  string
	String bool // Value is a string given with -D, not an expression given with \set
}

var letRE = regexp.MustCompile(`^\s*(let|def)\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^;]*);`)

// SplitLets splits the variable definitions off the front of an expression
// line. A line may start with any number of
//
//	let NAME = EXPR;   which runs "\set NAME EXPR" before the expression
//	def NAME = TEXT;   which passes "-D NAME=TEXT" (a string variable)
//
// neither EXPR nor TEXT may contain ';'. The rest of the line, with leading
// blanks removed when there were definitions, is the expression.
func SplitLets(line string) ([]Let, string) {
	var lets []Let
	for {
		m := letRE.FindStringSubmatch(line)
		if m == nil {
			break
		}
		lets = append(lets, Let{Name: m[2], Value: strings.TrimSpace(m[3]), String: m[1] == "def"})
		line = line[len(m[0]):]
	}
	if lets != nil {
		line = strings.TrimLeft(line, " \t")
	}
	return lets, line
}

// batchSize is how many expressions share one pgbench run when they can.
const batchSize = 40

// EvalExprs evaluates each expression (a line in the SplitLets format) the
// way "\set res EXPR" followed by "SELECT ':res';" does in pgbench, run
// with --random-seed=0 and one client. Expressions that use no variables
// but their own lets (and built-in ones), no -D definitions and no random
// or debug functions are evaluated up to batchSize per run; when such a
// run fails, the failing expression takes that run's error and the others
// are evaluated again, so every result is what pgbench gives for that
// expression alone (after its lets). The rest get one run each. The error
// is non-nil only if pgbench could not be run; results are then partial.
// EvalExprs is safe for concurrent use.
func EvalExprs(ctx context.Context, exprs []string) ([]ExprResult, error) {
	results := make([]ExprResult, len(exprs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, group := range groups(exprs) {
		wg.Go(func() {
			if err := evalGroup(ctx, exprs, group, results); err != nil {
				mu.Lock()
				firstErr = cmp.Or(firstErr, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return results, firstErr
}

// groups splits the indexes of exprs into runs: batchable expressions in
// batches of batchSize, every other expression alone.
func groups(exprs []string) [][]int {
	var out [][]int
	var batch []int
	for i, e := range exprs {
		if !batchable(e) {
			out = append(out, []int{i})
			continue
		}
		batch = append(batch, i)
		if len(batch) == batchSize {
			out, batch = append(out, batch), nil
		}
	}
	if batch != nil {
		out = append(out, batch)
	}
	return out
}

// batchable reports whether an expression gives the same result whatever
// ran before it in the same client: it uses only variables it defines
// itself with let (or built-in ones that never change, and that it does
// not redefine), uses no random state, and prints no debug output that
// would need attributing.
func batchable(e string) bool {
	lets, expr := SplitLets(e)
	own := map[string]bool{"client_id": true, "scale": true, "default_seed": true, "random_seed": true}
	for _, l := range lets {
		if l.String || own[l.Name] || !batchable(l.Value) {
			return false
		}
		own[l.Name] = true
	}
	l := strings.ToLower(expr)
	if strings.Contains(l, "random") || strings.Contains(l, "debug") || strings.Contains(expr, "::") {
		return false
	}
	for _, m := range varRE.FindAllStringSubmatch(expr, -1) {
		if !own[m[1]] {
			return false
		}
	}
	return true
}

var varRE = regexp.MustCompile(`:([A-Za-z0-9_\x80-\xff]*)`)

// evalGroup evaluates a group of expressions in one run. When the run
// fails, the expression that failed is found from the SQL sent so far
// (runtime errors) or from the line number (static errors) and takes the
// run's error; the expressions not yet known are run again without it. A
// static error stops pgbench before it connects, so those runs are cheap.
func evalGroup(ctx context.Context, exprs []string, group []int, results []ExprResult) error {
	for len(group) > 1 {
		script, args, lines := exprScript(exprs, group)
		out, err := Run(ctx, script, args...)
		if err != nil {
			return err
		}
		if out.ExitCode == 0 && len(out.Sent) == len(group) {
			fillValues(out, group, results)
			return nil
		}
		bad := failedItem(out, lines)
		if bad < 0 {
			break
		}
		// A batched expression depends on nothing run before it, so its
		// error is the one it gives alone (locations are stripped), unless
		// pgbench only said which command of the batch failed.
		if strings.HasPrefix(out.FirstError(), "client ") {
			if err := evalGroup(ctx, exprs, group[bad:bad+1], results); err != nil {
				return err
			}
		} else {
			results[group[bad]] = exprResult(out)
		}
		if out.ExitCode == 2 {
			fillValues(out, group[:bad], results)
			group = group[bad+1:]
		} else {
			group = append(group[:bad:bad], group[bad+1:]...)
		}
	}
	for _, i := range group {
		script, args, _ := exprScript(exprs, []int{i})
		out, err := Run(ctx, script, args...)
		if err != nil {
			return err
		}
		results[i] = exprResult(out)
	}
	return nil
}

func fillValues(out Outcome, group []int, results []ExprResult) {
	for k, i := range group {
		results[i] = ExprResult{Kind: Value, Text: selectedValue(out.Sent[k].SQL)}
	}
}

// failedItem returns the index within a batch of the expression that made
// the run fail, or -1 if it cannot be told. Each batched expression sends
// exactly one SQL text; lines maps script lines (from 1) to expressions.
func failedItem(out Outcome, lines []int) int {
	switch out.ExitCode {
	case 2:
		if n := len(out.Sent); len(lines) > 0 && n <= lines[len(lines)-1] {
			return n
		}
	case 1:
		if m := lineRE.FindStringSubmatch(out.FirstError()); m != nil {
			if line, _ := strconv.Atoi(m[1]); line >= 1 && line <= len(lines) {
				return lines[line-1]
			}
		}
	}
	return -1
}

var lineRE = regexp.MustCompile(`^` + regexp.QuoteMeta(ScriptName) + `:(\d+): `)

// exprScript writes the pgbench script for some expressions and returns
// it with the extra pgbench arguments it needs and, for each script line,
// the index within group of the expression it belongs to.
func exprScript(exprs []string, group []int) (string, []string, []int) {
	var b strings.Builder
	var lines []int
	args := []string{"--random-seed=0"}
	for k, i := range group {
		lets, expr := SplitLets(exprs[i])
		for _, l := range lets {
			if l.String {
				args = append(args, "-D", l.Name+"="+l.Value)
			} else {
				fmt.Fprintf(&b, "\\set %s %s\n", l.Name, l.Value)
				lines = append(lines, k)
			}
		}
		fmt.Fprintf(&b, "%s%d %s\nSELECT ':res%d';\n", setPrefix, i, expr, i)
		for range strings.Count(expr, "\n") + 2 {
			lines = append(lines, k)
		}
	}
	return b.String(), args, lines
}

// setPrefix starts the command that evaluates an expression; carets are
// reported relative to the end of it.
const setPrefix = "\\set res"

func selectedValue(sql string) string {
	v := strings.TrimPrefix(sql, "SELECT '")
	return strings.TrimSuffix(v, "';")
}

// exprResult interprets the run of a single expression.
func exprResult(out Outcome) ExprResult {
	r := ExprResult{Debug: out.Debug}
	switch {
	case out.ExitCode == 0 && len(out.Sent) == 1:
		r.Kind, r.Text = Value, selectedValue(out.Sent[0].SQL)
		return r
	case out.ExitCode == 1:
		r.Kind = Static
	case out.ExitCode == 2:
		r.Kind = Runtime
	default:
		r.Kind = Kind("exit " + strconv.Itoa(out.ExitCode))
	}
	if len(out.Errors) > 0 {
		r.Error = out.Errors[0]
	}
	r.Text = lineRE.ReplaceAllString(out.FirstError(), "")
	if r.Kind == Static {
		r.Column = caretColumn(r.Error)
	}
	return r
}

// caretColumn finds pgbench's caret line in an error and converts its
// offset within the echoed "\set resN EXPR" line into a column of EXPR.
// It gives 0 when the echoed command spans lines (continuations).
func caretColumn(errText string) int {
	lines := strings.Split(errText, "\n")
	for k := 1; k < len(lines); k++ {
		pos := strings.Index(lines[k], "^ error found here")
		if pos < 0 || !strings.HasPrefix(lines[k-1], setPrefix) {
			continue
		}
		rest := strings.TrimPrefix(lines[k-1], setPrefix)
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		start := len(setPrefix) + digits + 1
		if col := pos - start + 1; col > 0 {
			return col
		}
	}
	return 0
}
