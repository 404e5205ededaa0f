package pgbenchref

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/pgbench from pgbench")

// corpus is the directory of corpora and golden files.
var corpus = filepath.Join("..", "..", "testdata", "pgbench")

// needPgbench skips t when pgbench 15 or the server is missing, or fails
// it under GBENCH_REQUIRE_SERVICES=1 (testsrv decides); with both there,
// a pgbench that cannot run SELECT 1 on the server is a failure.
func needPgbench(t *testing.T) {
	t.Helper()
	testsrv.NeedPgbench15(t)
	testsrv.NeedPostgres(t)
	if !Available() {
		t.Fatal("pgbench 15 and the server at GBENCH_TEST_PG are there, but pgbench on PATH cannot run SELECT 1 on it")
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// checkGolden compares got with the golden file name, or rewrites the file
// under -update. header is written at the top of a rewritten file.
func checkGolden(t *testing.T, name, header string, lines []string) {
	t.Helper()
	path := filepath.Join(corpus, name)
	got := header + strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	diffLines(t, name, string(want), got)
}

// diffLines reports the records (non-comment lines) that differ.
func diffLines(t *testing.T, name, want, got string) {
	t.Helper()
	w, g := records(want), records(got)
	bad := 0
	for i := 0; i < max(len(w), len(g)) && bad < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			t.Errorf("%s record %d:\n  golden: %s\n  pgbench: %s", name, i+1, wl, gl)
			bad++
		}
	}
	if bad > 0 {
		t.Logf("rerun with -update to accept pgbench's output if the corpus changed")
	}
}

func records(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

const exprsHeader = `# Generated from pgbench 15 by: go test ./script/internal/pgbenchref -run Golden -update
# One line per expression of exprs.txt: EXPR <TAB> KIND <TAB> TEXT [<TAB> col=N]
#   EXPR  as in exprs.txt (let/def prefixes included); \ newline tab are escaped \\ \n \t
#   KIND  value   (TEXT is what pgbench substitutes for the variable in SQL)
#         static  (exit 1 before running; TEXT is the first error line without
#                  "pgbench: error: script.sql:LINE: ")
#         runtime (exit 2; TEXT is the first error line without "pgbench: error: ")
#   col=N static errors with a caret: 1-based column of the caret within EXPR
#         (len(EXPR)+1 means "at end of input")
# Each expression runs as "\set res EXPR" then "SELECT ':res';" with -M simple,
# one client, --random-seed=0.
`

func TestGoldenExprs(t *testing.T) {
	t.Parallel()
	needPgbench(t)
	exprs, err := ReadExprs(filepath.Join(corpus, "exprs.txt"))
	if err != nil {
		t.Fatal(err)
	}
	start, before := time.Now(), runs.Load()
	results, err := EvalExprs(testContext(t), exprs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d expressions in %d pgbench runs, %v", len(exprs), runs.Load()-before, time.Since(start))
	lines := make([]string, len(exprs))
	for i, r := range results {
		lines[i] = FormatExprLine(exprs[i], r)
	}
	checkGolden(t, "exprs.golden", exprsHeader, lines)
}
