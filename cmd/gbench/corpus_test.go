package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

// scriptArgs returns the pgbench arguments a corpus script asks for on its
// first line ("-- args: ...").
func scriptArgs(script string) []string {
	first, _, _ := strings.Cut(script, "\n")
	rest, ok := strings.CutPrefix(strings.TrimSuffix(first, "\r"), "-- args:")
	if !ok {
		return nil
	}
	return strings.Fields(rest)
}

// unescape undoes the golden files' escapes of \\ \n \r \t.
func unescape(s string) string {
	r := strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r", `\t`, "\t")
	return r.Replace(s)
}

// corpusDir holds pgbench 15's recorded behaviour (see script/internal/pgbenchref).
const corpusDir = "../../script/testdata/pgbench"

// corpusConninfo returns the test server's conninfo, or skips.
func corpusConninfo(t *testing.T) string {
	t.Helper()
	c := testsrv.NeedPostgres(t)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: os.Getenv, Now: time.Now}
	if code := Run(env, []string{"-n", "-t", "1", "-f", writeScript(t, "SELECT 1;\n"), c}); code != 0 {
		t.Fatalf("PostgreSQL is up but gbench cannot run on it:\n%s", errb.String())
	}
	return c
}

func writeScript(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script.sql")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// gbenchRun runs the CLI in-process on a corpus script the way the
// corpus ran pgbench: -n --debug -t 1 -c 1 --random-seed=0, then the
// script's "-- args:".
func gbenchRun(t *testing.T, conn, file, mode string) (int, string) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-n", "--debug", "-t", "1", "-c", "1", "--random-seed=0", "--percentiles=", "-M", mode}
	args = append(args, scriptArgs(string(data))...)
	args = append(args, "-f", writeScript(t, string(data)), conn)
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: os.Getenv, Now: time.Now}
	return Run(env, args), errb.String()
}

// extensionAccepts are the bad scripts that pgbench rejects and gbench
// runs, because they are written in a gbench extension, and which.
var extensionAccepts = map[string]string{
	"041-set-string-literal.sql": "string literals, docs/language.md's extension 3",
}

// TestBadScriptsExitLikePgbench runs every bad script through gbench and
// checks the exit status pgbench 15 gave it (1 before running, 2 during).
func TestBadScriptsExitLikePgbench(t *testing.T) {
	conn := corpusConninfo(t)
	golden := readGolden(t, "bad.golden")
	files, _ := filepath.Glob(filepath.Join(corpusDir, "bad", "*.sql"))
	if len(files) < 100 {
		t.Fatalf("only %d bad scripts", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		want := golden[name]
		code, stderr := gbenchRun(t, conn, f, "simple")
		if why := extensionAccepts[name]; why != "" {
			// pgbench rejects the script; gbench runs it, on purpose.
			if want[0] != "1" || code != 0 {
				t.Errorf("%s: exit %d, pgbench %s; want gbench 0 and pgbench 1 (%s)", name, code, want[0], why)
			}
			continue
		}
		if strconv.Itoa(code) != want[0] {
			t.Errorf("%s: exit %d, pgbench %s (%s)\n%s", name, code, want[0], want[1], lastLines(stderr, 4))
			continue
		}
		if code != 2 {
			continue // the script package compares the messages of exit 1
		}
		// At run time, the first error with the lines that belong to it.
		got, wantErr := firstError(stderr), asGbench(unescape(want[1]))
		if want[2] != "" {
			wantErr += "\n" + unescape(want[2])
		}
		if why := runMessageDiffers[name]; why != "" {
			t.Logf("%s: allowed difference (%s)", name, why)
		} else if got != wantErr {
			t.Errorf("%s: first error differs\npgbench: %s\ngbench:  %s", name, wantErr, got)
		}
	}
}

// runMessageDiffers lists the bad scripts whose first run-time error
// differs from pgbench's on purpose, and why.
var runMessageDiffers = map[string]string{
	"106-gset-null-value.sql": "gbench says which variable is empty before the abort line; pgbench gives no reason",
}

// firstError returns the first "gbench: error: " message of stderr without
// that prefix, with the lines after it that are not gbench's own (a
// server error's LINE and caret lines, DETAIL, HINT, CONTEXT, or a value
// that holds a newline).
func firstError(stderr string) string {
	ls := lines(stderr)
	for i, l := range ls {
		msg, ok := strings.CutPrefix(l, "gbench: error: ")
		if !ok {
			continue
		}
		for _, c := range ls[i+1:] {
			if strings.HasPrefix(c, "gbench: ") {
				break
			}
			msg += "\n" + c
		}
		return msg
	}
	return ""
}

// TestGoodScriptsSendWhatPgbenchSends runs every good script in simple and
// extended mode and compares the SQL each client sent, transaction by
// transaction, with what pgbench 15 sent.
func TestGoodScriptsSendWhatPgbenchSends(t *testing.T) {
	conn := corpusConninfo(t)
	want := readGoodGolden(t)
	files, _ := filepath.Glob(filepath.Join(corpusDir, "good", "*.sql"))
	if len(files) < 30 {
		t.Fatalf("only %d good scripts", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		for _, mode := range []string{"simple", "extended"} {
			w, ok := want[name+"/"+mode]
			if !ok {
				continue
			}
			code, stderr := gbenchRun(t, conn, f, mode)
			if strconv.Itoa(code) != w.exit {
				t.Errorf("%s %s: exit %d, pgbench %s\n%s", name, mode, code, w.exit, lastLines(stderr, 6))
				continue
			}
			got := sentSQL(stderr)
			if strings.Join(got, "\n---\n") != strings.Join(w.sent, "\n---\n") {
				t.Errorf("%s %s: sent\n  %q\npgbench sent\n  %q", name, mode, got, w.sent)
			}
		}
	}
}

type goodRun struct {
	exit string
	sent []string // "client txn sql", ordered per client
}

// readGoodGolden reads good.golden into runs keyed "file/mode".
func readGoodGolden(t *testing.T) map[string]*goodRun {
	data, err := os.ReadFile(filepath.Join(corpusDir, "good.golden"))
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]*goodRun{}
	var file string
	var cur *goodRun
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "\t")
		switch f[0] {
		case "script":
			file = f[1]
		case "mode":
			cur = &goodRun{exit: f[2]}
			if _, seen := runs[file+"/"+f[1]]; !seen {
				runs[file+"/"+f[1]] = cur
			}
		case "sent":
			cur.sent = append(cur.sent, f[1]+" "+f[2]+" "+unescape(f[3]))
		}
	}
	return runs
}

// sentSQL extracts "client txn sql" from gbench's --debug output, ordered
// per client like good.golden.
func sentSQL(stderr string) []string {
	txns := map[int]int{}
	perClient := map[int][]string{}
	lines := strings.Split(stderr, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		var client int
		switch {
		case strings.Contains(l, " executing script "):
			if _, err := fmtSscan(l, "gbench: client %d", &client); err == nil {
				if _, seen := perClient[client]; seen {
					txns[client]++
				} else {
					perClient[client] = nil
				}
			}
		case strings.HasPrefix(l, "gbench: client ") && strings.Contains(l, " sending "):
			fmtSscan(l, "gbench: client %d", &client)
			sql := l[strings.Index(l, " sending ")+len(" sending "):]
			for i+1 < len(lines)-1 && !strings.HasPrefix(lines[i+1], "gbench: ") {
				i++
				sql += "\n" + lines[i]
			}
			perClient[client] = append(perClient[client], strconv.Itoa(client)+" "+strconv.Itoa(txns[client])+" "+sql)
		}
	}
	var out []string
	for c := 0; c < 64; c++ {
		out = append(out, perClient[c]...)
	}
	return out
}

func fmtSscan(s, format string, v *int) (int, error) {
	rest := strings.TrimPrefix(s, strings.Split(format, "%d")[0])
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(rest[:end])
	*v = n
	return n, err
}

// readGolden reads a tab-separated golden file keyed by its first field.
func readGolden(t *testing.T, name string) map[string][]string {
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		out[f[0]] = append(f[1:], "", "")
	}
	return out
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
