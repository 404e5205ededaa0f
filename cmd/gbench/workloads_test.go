package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gbench/gbench/workloads"
)

// TestWorkloadsListAndShow checks that every bundled workload is listed
// with its summary and can be printed by any of the names a user may type.
func TestWorkloadsListAndShow(t *testing.T) {
	out := runGbench("workloads", "list")
	if out.code != exitOK || out.stderr != "" {
		t.Fatalf("list: status %d\n%s", out.code, out.stderr)
	}
	for _, w := range workloads.Workloads() {
		if !strings.Contains(out.stdout, "\n"+w.Name+" ") || !strings.Contains(out.stdout, summary(w.Name)+"\n") {
			t.Errorf("list: no line for %s with %q", w.Name, summary(w.Name))
		}
	}
	if !strings.Contains(out.stdout, "\ndataset.sql: the schema, tables and functions") {
		t.Errorf("list does not mention dataset.sql:\n%s", out.stdout)
	}
	mget, _ := workloads.Text("mget64.sql")
	dataset, _ := workloads.Text(workloads.DatasetFile)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mget64"}, mget},
		{[]string{"mget64.sql"}, mget},
		{[]string{"workloads/mget64.sql"}, mget},
		{[]string{"./workloads/mget64.sql", "dataset.sql"}, mget + dataset},
	} {
		out := runGbench(append([]string{"workloads", "show"}, c.args...)...)
		if out.code != exitOK || out.stdout != c.want {
			t.Errorf("show %q: status %d, %d bytes, want %d\n%s", c.args, out.code, len(out.stdout), len(c.want), out.stderr)
		}
	}
}

// TestWorkloadsErrors checks the messages of bad command lines.
func TestWorkloadsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // standard error, whole
	}{
		{[]string{"workloads"}, "gbench: error: missing command: list, show, extract, load or drop\ngbench: hint: Try \"gbench workloads --help\" for more information.\n"},
		{[]string{"workloads", "lst"}, "gbench: error: unknown command \"lst\" of gbench workloads: list, show, extract, load or drop\ngbench: hint: Try \"gbench workloads --help\" for more information.\n"},
		{[]string{"workloads", "show", "nope"}, "gbench: error: no bundled workload \"nope\"; \"gbench workloads list\" lists them\n"},
		{[]string{"workloads", "show"}, "gbench: error: gbench workloads show needs a NAME, such as mget64 (\"gbench workloads list\" lists them)\n"},
		{[]string{"workloads", "load", "--items", "5"}, "gbench: error: --items must be in range 128..2147483647\n"},
		{[]string{"workloads", "load", "--bogus"}, "gbench: error: unknown flag: --bogus\ngbench: hint: Try \"gbench workloads --help\" for more information.\n"},
		{[]string{"workloads", "drop", "db1", "db2"}, "gbench: error: too many command-line arguments (first is \"db2\")\ngbench: hint: Try \"gbench workloads --help\" for more information.\n"},
		{[]string{"workloads", "load", "--resp", "http://x"}, "gbench: error: invalid redis URL \"http://x\": unsupported scheme \"http\" (want redis, rediss, redis+cluster, rediss+cluster, redis-sentinel or unix)\n"},
	} {
		out := runGbench(c.args...)
		if out.code != exitUsage || out.stderr != c.want {
			t.Errorf("gbench %s: status %d, stderr\n%s\nwant status 1 and\n%s", strings.Join(c.args, " "), out.code, out.stderr, c.want)
		}
	}
	for _, args := range [][]string{{"workloads", "--help"}, {"workloads", "load", "--help"}, {"workloads", "drop", "--help"}} {
		if out := runGbench(args...); out.code != exitOK || !strings.Contains(out.stdout, "Usage:\n  gbench workloads") {
			t.Errorf("%q: status %d\n%s", args, out.code, out.stdout)
		}
	}
}

// TestLoadTargets checks which servers a load or a drop goes to.
func TestLoadTargets(t *testing.T) {
	for _, c := range []struct {
		args   []string
		pg     bool
		dbname string
	}{
		{[]string{"mydb"}, true, "mydb"},                            // PostgreSQL alone
		{[]string{"--resp", "redis://h:1/0", "mydb"}, true, "mydb"}, // both
		{[]string{"--resp", "redis://h:1/0"}, false, ""},            // Redis alone
		{[]string{"--resp", "redis://h:1/0", "-h", "pghost"}, true, ""},
		{[]string{"--resp", "redis://h:1/0", "-U", "me"}, true, ""},
		{[]string{}, true, ""}, // the default database, as gbench connects
	} {
		lo, _, err := parseLoadArgs(c.args, true)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if lo.wantsPostgres() != c.pg || lo.conn.dbname != c.dbname {
			t.Errorf("%q: PostgreSQL %v, database %q; want %v, %q", c.args, lo.wantsPostgres(), lo.conn.dbname, c.pg, c.dbname)
		}
	}
}

// TestWorkloadsExtract extracts into a directory, then refuses to
// overwrite an edited file unless --force.
func TestWorkloadsExtract(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "w")
	out := runGbench("workloads", "extract", dir)
	n := len(workloads.Workloads()) + 2 // and dataset.sql, tpcc.sql
	if want := "gbench workloads: wrote " + strconv.Itoa(n) + " files to " + dir + " (0 already there, unchanged)\n"; out.code != exitOK || out.stderr != want {
		t.Fatalf("status %d\n%s\nwant\n%s", out.code, out.stderr, want)
	}
	for _, name := range []string{"mget64.sql", workloads.DatasetFile} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		want, _ := workloads.Text(name)
		if err != nil || string(got) != want {
			t.Errorf("%s: %v, or not the bundled text", name, err)
		}
	}
	edited := filepath.Join(dir, "any1.sql")
	if err := os.WriteFile(edited, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "mget1.sql"))
	out = runGbench("workloads", "extract", dir)
	if out.code != exitUsage || !strings.Contains(out.stderr, dir+": any1.sql differs from the bundled copy (edited?); nothing was written: add --force") {
		t.Errorf("over an edited file: status %d\n%s", out.code, out.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "mget1.sql")); !os.IsNotExist(err) {
		t.Errorf("a refused extract wrote mget1.sql (%v)", err)
	}
	out = runGbench("workloads", "extract", "--force", dir)
	if want := "gbench workloads: wrote 2 files to " + dir + " (" + strconv.Itoa(n-2) + " already there, unchanged)\n"; out.code != exitOK || out.stderr != want {
		t.Errorf("--force: status %d\n%s\nwant\n%s", out.code, out.stderr, want)
	}
}

// TestBundledScripts runs the option parser in a directory without a
// workloads/ directory, then with an edited copy: -f workloads/NAME.sql
// reads the bundled copy only when no file of that name exists, with
// weights and -D as for any file, and names a builtin's place (-b,
// --show-script) with a hint to -f.
func TestBundledScripts(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	env := &Env{Stdin: strings.NewReader(""), Getenv: func(string) string { return "" }}
	o, _, _, err := parseArgs(env, []string{"-f", "workloads/mget64.sql@3", "-f", "./workloads/resp-mget16-random.sql", "-D", "items=500"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.scripts) != 2 || o.scripts[0].weight != 3 || o.scripts[1].weight != 1 ||
		o.scripts[0].name != "workloads/mget64.sql" || o.scripts[1].name != "./workloads/resp-mget16-random.sql" ||
		len(o.defines) != 1 {
		t.Errorf("scripts %+v, defines %v", o.scripts, o.defines)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", "workloads/nope.sql"}, "gbench: error: could not open file \"workloads/nope.sql\": No such file or directory\ngbench: hint: no file and no bundled workload of that name; \"gbench workloads list\" lists the bundled ones\n"},
		{[]string{"-f", "workloads/dataset.sql"}, "gbench: error: could not open file \"workloads/dataset.sql\": No such file or directory\ngbench: hint: no file and no bundled workload of that name; \"gbench workloads list\" lists the bundled ones\n"},
		{[]string{"-f", "mget64.sql"}, "gbench: error: could not open file \"mget64.sql\": No such file or directory\n"},
		{[]string{"-b", "mget64"}, "gbench: error: no builtin script found for name \"mget64\"\nAvailable builtin scripts:\n      tpcb-like: <builtin: TPC-B (sort of)>\n  simple-update: <builtin: simple update>\n    select-only: <builtin: select only>\n\ngbench: hint: mget64.sql is a bundled workload, not a builtin: run it with -f workloads/mget64.sql, print it with \"gbench workloads show mget64.sql\"\n"},
		{[]string{"--show-script", "resp-mget1.sql"}, "gbench: error: no builtin script found for name \"resp-mget1.sql\"\nAvailable builtin scripts:\n      tpcb-like: <builtin: TPC-B (sort of)>\n  simple-update: <builtin: simple update>\n    select-only: <builtin: select only>\n\ngbench: hint: resp-mget1.sql is a bundled workload, not a builtin: run it with -f workloads/resp-mget1.sql, print it with \"gbench workloads show resp-mget1.sql\"\n"},
	} {
		if out := runGbench(c.args...); out.code != exitUsage || out.stderr != c.want {
			t.Errorf("%q: status %d, stderr\n%s\nwant\n%s", c.args, out.code, out.stderr, c.want)
		}
	}

	// A file on disk wins, even a broken one.
	if err := os.MkdirAll("workloads", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("workloads/mget64.sql", []byte("\\set x (\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runGbench("-f", "workloads/mget64.sql", "-f", "workloads/mget16.sql")
	if out.code != exitUsage || !strings.HasPrefix(out.stderr, "gbench: error: workloads/mget64.sql:1:") {
		t.Errorf("with an edited copy on disk: status %d\n%s", out.code, out.stderr)
	}
	if err := os.Chmod("workloads/mget64.sql", 0); err == nil && os.Getuid() != 0 {
		// An unreadable file is an error, not a reason to run the bundled copy.
		if out := runGbench("-f", "workloads/mget64.sql"); out.code != exitUsage || !strings.Contains(out.stderr, "Permission denied") {
			t.Errorf("with an unreadable copy on disk: status %d\n%s", out.code, out.stderr)
		}
	}
}
