package pgbenchref

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// runScripts runs every .sql file of a corpus directory with each of the
// query modes, concurrently (Run bounds the processes), and returns the
// outcomes indexed like the files and then like modes.
func runScripts(t *testing.T, dir string, modes ...string) ([]string, [][]Outcome) {
	t.Helper()
	paths, err := ScriptFiles(filepath.Join(corpus, dir))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scripts in %s: %v", dir, err)
	}
	ctx := testContext(t)
	outs := make([][]Outcome, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = make([]Outcome, len(modes))
		for m, mode := range modes {
			wg.Go(func() {
				// The script's own "-- args:" come last so they win.
				args := append([]string{"-M", mode, "--random-seed=0"}, ScriptArgs(string(text))...)
				out, err := Run(ctx, string(text), args...)
				if err != nil {
					t.Errorf("%s: %v", p, err)
				}
				outs[i][m] = out
			})
		}
	}
	wg.Wait()
	for i := range paths {
		paths[i] = filepath.Base(paths[i])
	}
	return paths, outs
}

const badHeader = `# Generated from pgbench 15 by: go test ./script/internal/pgbenchref -run Golden -update
# One line per script of bad/: FILE <TAB> EXIT <TAB> FIRST ERROR LINE [<TAB> CONTEXT]
#   EXIT     1 = rejected before running, 2 = failure during the run
#   FIRST    first "pgbench: error: " line without that prefix; the script
#            file is always named script.sql, so locations read script.sql:LINE:
#   CONTEXT  the lines printed after it that belong to it (the echoed
#            command and the "^ error found here" caret line, the server's
#            LINE/caret lines, "detail:" and "hint:" lines), \n-separated
# Fields escape \ newline CR tab as \\ \n \r \t. Scripts run with
# -n -M simple -d -t 1 -c 1 --random-seed=0 plus the "-- args:" of their
# first line.
`

func TestGoldenBad(t *testing.T) {
	t.Parallel()
	needPgbench(t)
	names, outs := runScripts(t, "bad", "simple")
	lines := make([]string, len(names))
	for i, name := range names {
		out := outs[i][0]
		if out.ExitCode == 0 {
			t.Errorf("%s: pgbench accepted it (exit 0); it belongs in good/", name)
		}
		first, context := "", ""
		if len(out.Errors) > 0 {
			first, context, _ = strings.Cut(out.Errors[0], "\n")
		}
		lines[i] = name + "\t" + strconv.Itoa(out.ExitCode) + "\t" + Escape(first)
		if context != "" {
			lines[i] += "\t" + Escape(context)
		}
	}
	checkGolden(t, "bad.golden", badHeader, lines)
}

const goodHeader = `# Generated from pgbench 15 by: go test ./script/internal/pgbenchref -run Golden -update
# For each script of good/ (which pgbench must run with exit 0 in simple mode),
# one block per query mode, records tab-separated:
#   script  FILE                       starts the script's records
#   mode    simple|extended  EXIT      pgbench run with -M that mode
#   sent    CLIENT  TXN  SQL           each SQL text pgbench logged as sent, by client,
#                                      in order (TXN counts the client's transactions from 0)
#   debug   LINE                       each line printed by debug()
#   error   FIRST                      first line of each "pgbench: error: " message
# Fields escape \ newline CR tab as \\ \n \r \t. Scripts run with
# -n -d -t 1 -c 1 --random-seed=0 plus the "-- args:" of their first line,
# which come after -M and so may override it (such scripts then show the same mode twice).
`

func TestGoldenGood(t *testing.T) {
	t.Parallel()
	needPgbench(t)
	names, outs := runScripts(t, "good", "simple", "extended")
	var lines []string
	for i, name := range names {
		if outs[i][0].ExitCode != 0 {
			t.Errorf("%s: pgbench rejected it in simple mode (exit %d: %s); it belongs in bad/",
				name, outs[i][0].ExitCode, outs[i][0].FirstError())
		}
		lines = append(lines, "script\t"+name)
		for m, mode := range []string{"simple", "extended"} {
			lines = append(lines, scriptRecords(mode, outs[i][m])...)
		}
	}
	checkGolden(t, "good.golden", goodHeader, lines)
}

// scriptRecords renders one run in the good.golden format.
func scriptRecords(mode string, out Outcome) []string {
	lines := []string{"mode\t" + mode + "\t" + strconv.Itoa(out.ExitCode)}
	// Clients interleave as the server answers; only each client's own
	// order is pgbench's behaviour.
	sent := slices.Clone(out.Sent)
	slices.SortStableFunc(sent, func(a, b Sent) int { return a.Client - b.Client })
	for _, s := range sent {
		lines = append(lines, "sent\t"+strconv.Itoa(s.Client)+"\t"+strconv.Itoa(s.Txn)+"\t"+Escape(s.SQL))
	}
	for _, d := range out.Debug {
		lines = append(lines, "debug\t"+Escape(d))
	}
	for _, e := range out.Errors {
		first, _, _ := strings.Cut(e, "\n")
		lines = append(lines, "error\t"+Escape(first))
	}
	return lines
}
