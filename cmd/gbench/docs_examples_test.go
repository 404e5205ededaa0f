package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/workloads"
)

// A docExample is one example of a page of docs/: a code block's gbench
// command lines, or a script block (```sql).
type docExample struct {
	doc     string
	line    int      // of the block's first line, 1-based
	script  string   // the script block's text; "" for commands
	cmds    []string // the command lines, continuations joined
	skip    string   // the reason of <!-- example: skip (REASON) -->
	excerpt string   // NAME of <!-- example: excerpt of workloads/NAME -->
}

var (
	exampleMark = regexp.MustCompile(`^<!-- example: (skip \((.+)\)|excerpt of workloads/(\S+)) -->$`)
	anyMark     = regexp.MustCompile(`^<!-- example:`)
	scriptLabel = regexp.MustCompile(`^-- (?:workloads/)?([\w.-]+\.sql)\b`)
)

// parseDocExamples returns the examples of a page: fenced blocks (```sh,
// ```console, ```sql or no language) and indented blocks. A block's marker
// is an HTML comment on the last non-blank line before it.
func parseDocExamples(t *testing.T, doc, text string) []docExample {
	t.Helper()
	var out []docExample
	lines := strings.Split(text, "\n")
	mark, prevBlank := "", true
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "```"):
			lang := strings.TrimPrefix(line, "```")
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
				j++
			}
			body := lines[i+1 : min(j, len(lines))]
			if ex, ok := newDocExample(doc, i+2, lang, body, mark); ok {
				out = append(out, ex)
			}
			i, mark, prevBlank = j, "", false
		case prevBlank && strings.HasPrefix(line, "    "):
			j := i
			for j < len(lines) && (strings.HasPrefix(lines[j], "    ") || strings.TrimSpace(lines[j]) == "" && j+1 < len(lines) && strings.HasPrefix(lines[j+1], "    ")) {
				j++
			}
			if ex, ok := newDocExample(doc, i+1, "sh", lines[i:j], mark); ok {
				out = append(out, ex)
			}
			i, mark, prevBlank = j-1, "", false
		case strings.TrimSpace(line) == "":
			prevBlank = true
		default:
			if mark != "" {
				t.Errorf("%s:%d: %s is not right before a code block", doc, i, mark)
			}
			if anyMark.MatchString(strings.TrimSpace(line)) {
				if !exampleMark.MatchString(strings.TrimSpace(line)) {
					t.Errorf("%s:%d: a marker reads <!-- example: skip (REASON) --> or <!-- example: excerpt of workloads/NAME -->: %q", doc, i+1, line)
				}
				// a comment ends its HTML block: an indented block may follow at once
				mark, prevBlank = strings.TrimSpace(line), true
				continue
			}
			mark, prevBlank = "", false
		}
	}
	return out
}

// newDocExample makes a block an example, if it is one: a script block, or
// a block with gbench command lines ("gbench ARG", "$ gbench ARG", where ARG
// does not end in ":" as the first word of gbench's messages do).
func newDocExample(doc string, line int, lang string, body []string, mark string) (docExample, bool) {
	ex := docExample{doc: doc, line: line}
	if m := exampleMark.FindStringSubmatch(mark); m != nil {
		ex.skip, ex.excerpt = m[2], m[3]
	}
	switch lang {
	case "sql":
		ex.script = strings.Join(body, "\n") + "\n"
		return ex, true
	case "", "sh", "console":
	default:
		return ex, false
	}
	joined := strings.ReplaceAll(strings.Join(body, "\n"), "\\\n", " ")
	for _, l := range strings.Split(joined, "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "$ ")
		if f := strings.Fields(l); len(f) > 1 && f[0] == "gbench" && !strings.HasSuffix(f[1], ":") {
			ex.cmds = append(ex.cmds, l)
		}
	}
	return ex, len(ex.cmds) > 0
}

// TestDocsExamples runs every example of docs/*.md, as written but made
// short (see shortArgs), against a sandbox loaded with "gbench workloads
// load"; docs/design.md's Tests section states the convention.
// GBENCH_DOCS_EXAMPLES=resp.md runs one page's examples.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	only := os.Getenv("GBENCH_DOCS_EXAMPLES")
	var all []docExample
	for _, p := range pages {
		if only != "" && filepath.Base(p) != only {
			continue
		}
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, parseDocExamples(t, filepath.Base(p), string(text))...)
	}
	if len(all) == 0 {
		t.Fatalf("no examples in docs/ (GBENCH_DOCS_EXAMPLES=%q)", only)
	}
	sb := startSandbox(t)
	g := buildGbench(t)
	db, url := sb.PostgresConnString(), sb.RedisURL()
	g.env = append(pgEnv(db), "GBENCH_RESP="+url)
	g.ok("workloads", "load", "--keyspace", "1000", "--sessions", "1000", "--resp", url, db) // small: the pages load their own sizes
	dirs := map[string]string{}
	for _, ex := range all {
		if dirs[ex.doc] == "" {
			dirs[ex.doc] = exampleDir(t)
		}
		t.Run(ex.doc+":"+strconv.Itoa(ex.line), func(t *testing.T) {
			if ex.skip != "" {
				t.Skip(ex.skip)
			}
			page := *g
			page.t, page.dir = t, dirs[ex.doc]
			runDocExample(t, &page, ex, db, url)
		})
	}
}

// exampleDir makes the working directory of a page's examples, the same
// for all of them, so that a script block labelled "-- NAME.sql" is a file a
// later command can name. It starts with testdata/docs-examples' files: the
// user's own scripts that examples name (my.sql, get.sql).
func exampleDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "examples")
	if err := os.CopyFS(dir, os.DirFS("testdata/docs-examples")); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runDocExample(t *testing.T, g *installedGbench, ex docExample, db, url string) {
	t.Helper()
	if ex.excerpt != "" {
		bundled, err := workloads.Text(ex.excerpt)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(bundled, ex.script) {
			t.Errorf("the block is not an excerpt of workloads/%s:\n%s", ex.excerpt, ex.script)
		}
		return
	}
	if ex.script != "" {
		runDocScript(t, g, ex.script, db, url)
		return
	}
	for _, cmd := range ex.cmds {
		for _, part := range strings.Split(cmd, " && ") {
			part, _, _ = strings.Cut(part, " #")
			args, stdout := shortArgs(t, part, db, url)
			var out outcome
			if slices.Contains(args, "--threshold") {
				// a short run may breach a threshold: exit status 3 says the gate ran
				if out = g.run(args...); out.code != exitOK && out.code != exitThreshold {
					t.Errorf("gbench %s: status %d\n%s\n%s", shellJoin(args), out.code, out.stdout, out.stderr)
				}
			} else {
				out = g.ok(args...)
			}
			if stdout != "" {
				if err := os.WriteFile(filepath.Join(g.dir, stdout), []byte(out.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// runDocScript runs a script block. A block whose first line names a
// bundled workload ("-- workloads/NAME.sql: ...") shows its commands: its
// lines but comments are the bundled file's. A block labelled with another
// name is written to that file in the page's directory.
func runDocScript(t *testing.T, g *installedGbench, script, db, url string) {
	name := "example.sql"
	if m := scriptLabel.FindStringSubmatch(script); m != nil {
		name = m[1]
		if bundled, err := workloads.Text(name); err == nil && commands(bundled) != commands(script) {
			t.Errorf("the block labelled %s is not the bundled workload's commands:\n%s\nwant\n%s", name, commands(script), commands(bundled))
		}
	}
	if err := os.WriteFile(filepath.Join(g.dir, name), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out := g.ok("-n", "-f", name, "-c", "1", "-t", "3", "-D", "items=4096", "-D", "keys=1000", "--resp", url, db)
	wantProcessed(t, out, 3)
}

// commands are a script's lines but its comments and blank lines.
func commands(script string) string {
	var b strings.Builder
	for _, l := range strings.Split(script, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// shortArgs splits a command line as a shell does (quotes, "> FILE") and
// makes it short and local: -T N becomes -t 3, -c N -c 2, -j N -j 1, mydb
// and DBNAME the sandbox's database, redis://127.0.0.1:6379/0 its Redis.
func shortArgs(t *testing.T, line, db, url string) (args []string, stdout string) {
	t.Helper()
	words := shellWords(t, line)
	if len(words) == 0 || words[0] != "gbench" {
		t.Fatalf("not a gbench command: %q", line)
	}
	words = words[1:]
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case w == ">" && i+1 < len(words):
			stdout = words[i+1]
			i++
			continue
		case (w == "-T" || w == "-c" || w == "-j") && i+1 < len(words):
			args = append(args, map[string]string{"-T": "-t", "-c": "-c", "-j": "-j"}[w],
				map[string]string{"-T": "3", "-c": "2", "-j": "1"}[w])
			i++
			continue
		case w == "mydb" || w == "DBNAME":
			w = db
		case w == "redis://127.0.0.1:6379/0":
			w = url
		}
		args = append(args, w)
	}
	return args, stdout
}

// shellWords splits a line into words: single and double quotes group.
func shellWords(t *testing.T, line string) []string {
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unclosed quote in %q", line)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// pgEnv is libpq's environment for a key=value conninfo, for the examples
// that name no database.
func pgEnv(conninfo string) []string {
	names := map[string]string{"host": "PGHOST", "port": "PGPORT", "user": "PGUSER", "dbname": "PGDATABASE"}
	var env []string
	for _, kv := range strings.Fields(conninfo) {
		if k, v, ok := strings.Cut(kv, "="); ok && names[k] != "" {
			env = append(env, names[k]+"="+v)
		}
	}
	return env
}
