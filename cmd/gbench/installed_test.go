package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/workloads"
	"github.com/jackc/pgx/v5/pgconn"
)

// installedGbench is a gbench binary built as "go install" builds it,
// run from a directory that holds nothing: no checkout, no workloads/.
type installedGbench struct {
	t   *testing.T
	bin string
	dir string
	env []string // added to the environment of every run
}

// buildGbench builds the command into a temporary directory.
func buildGbench(t *testing.T) *installedGbench {
	t.Helper()
	// go test puts its own toolchain first on the PATH of its tests.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "gbench")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/gbench/gbench/cmd/gbench").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return &installedGbench{t: t, bin: bin, dir: t.TempDir()}
}

// run runs the binary in its empty directory.
func (g *installedGbench) run(args ...string) outcome {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, g.bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = g.dir, &stdout, &stderr
	if g.env != nil {
		cmd.Env = append(os.Environ(), g.env...)
	}
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		g.t.Fatalf("gbench %q: %v", args, err)
	}
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// ok runs the binary and expects exit status 0 and every transaction done.
func (g *installedGbench) ok(args ...string) outcome {
	g.t.Helper()
	out := g.run(args...)
	if out.code != exitOK || strings.Contains(out.stdout, "number of failed transactions: ") && !strings.Contains(out.stdout, "number of failed transactions: 0 ") {
		g.t.Errorf("gbench %s: status %d\n%s\n%s", shellJoin(args), out.code, out.stdout, out.stderr)
	}
	return out
}

// startSandbox starts a throwaway PostgreSQL and Redis, or skips when their
// binaries are missing (unless GBENCH_REQUIRE_SERVICES=1).
func startSandbox(t *testing.T) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.Start(context.Background(), sandbox.Options{Postgres: true, Redis: true, MaxConnections: 30})
	if err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			testsrv.Need(t, "no server binaries for the sandbox: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Error(err)
		}
	})
	return sb
}

// sandboxSQL runs statements on a database of the sandbox.
func sandboxSQL(t *testing.T, conninfo, sql string) [][][]byte {
	t.Helper()
	ctx := context.Background()
	pg, err := pgconn.Connect(ctx, conninfo)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	res, err := pg.Exec(ctx, sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return res[len(res)-1].Rows
}

// TestInstalledBinary is what a new user does after
// "go install github.com/gbench/gbench/cmd/gbench@latest", from a directory
// of their own: load the dataset into their PostgreSQL and Redis (here a
// sandbox's) with one command, then run bundled workloads by the names the
// docs give, which the binary carries.
func TestInstalledBinary(t *testing.T) {
	t.Parallel()
	sb := startSandbox(t)
	g := buildGbench(t)
	db, url := sb.PostgresConnString(), sb.RedisURL()

	// The user's own objects, named as the dataset's were before it got a
	// schema and a prefix of its own: a load must not touch them.
	sandboxSQL(t, db, "CREATE TABLE public.items (id int, name text NOT NULL); INSERT INTO public.items VALUES (1, 'mine')")
	ro, err := resp.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	redis, err := resp.Dial(context.Background(), ro)
	if err != nil {
		t.Fatal(err)
	}
	defer redis.Close()
	rc := resp.NewClient(redis)
	if _, _, err := rc.Call("SET", "item:1", "mine"); err != nil {
		t.Fatal(err)
	}

	out := g.ok("workloads", "load", "--keyspace", "1000", "--resp", url, db)
	for _, want := range []string{
		`gbench workloads: loading 4096 items of 128 bytes, 1000 kv keys, 100000 sessions and 1000 YCSB records into PostgreSQL (database "gbench" on 127.0.0.1:`,
		"PostgreSQL: no schema gbench: nothing to replace\n",
		"Redis: no key of the dataset (gbench:*): nothing to replace\n",
		"PostgreSQL: generating data (server-side)...\n",
		"Redis: 5096 of 5096 keys (100%) done",
		"gbench workloads: the three read paths return the same values\n",
		"gbench workloads: run the workloads with -D items=4096 -D keys=1000",
	} {
		if !strings.Contains(out.stderr, want) {
			t.Errorf("load: no %q in\n%s", want, out.stderr)
		}
	}
	if got := sandboxSQL(t, db, "SELECT name FROM public.items"); len(got) != 1 || string(got[0][0]) != "mine" {
		t.Errorf("public.items after the load: %q", got)
	}
	if v, err := rc.Text("GET", "item:1"); err != nil || v != "mine" {
		t.Errorf("the key item:1 after the load: %q, %v", v, err)
	}

	t.Run("the issue's commands", func(t *testing.T) {
		out := g.ok("-n", "-M", "prepared", "-f", "workloads/mget64.sql", "-c", "2", "-t", "10", db)
		wantProcessed(t, out, 20)
		out = g.ok("-f", "workloads/resp-mget64.sql", "--resp", url, "-c", "2", "-t", "10")
		wantProcessed(t, out, 20)
		out = g.ok("-n", "-M", "prepared", "-f", "workloads/mget16.sql@3", "-f", "workloads/resp-mget16-random.sql@1",
			"-D", "items=4096", "--resp", url, "-c", "2", "-t", "20", db)
		wantProcessed(t, out, 40)
		for _, want := range []string{
			"SQL script 1: workloads/mget16.sql\n - weight: 3 (targets 75.0% of total)\n",
			"SQL script 2: workloads/resp-mget16-random.sql\n - weight: 1 (targets 25.0% of total)\n",
		} {
			if !strings.Contains(out.stdout, want) {
				t.Errorf("the weighted mix: no %q in\n%s", want, out.stdout)
			}
		}
	})

	t.Run("every header's run line", func(t *testing.T) {
		for _, w := range workloads.Workloads() {
			if w.Group == "tpcc" {
				continue // TestTPCCLike runs them on the TPC-C-like data
			}
			args := runLineArgs(t, w.Name, db, url)
			if out := g.ok(args...); !t.Failed() {
				wantProcessed(t, out, 10)
			}
		}
	})

	t.Run("the README's commands", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(g.dir, "my.sql"), []byte("SELECT 1;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(g.dir, "my.sql"))
		defer os.RemoveAll(filepath.Join(g.dir, "workloads")) // the README extracts them
		for _, args := range readmeCommands(t, db, url) {
			t.Logf("gbench %s", shellJoin(args))
			g.ok(args...)
		}
	})

	t.Run("a copy on disk wins", func(t *testing.T) {
		g.ok("workloads", "extract")
		path := filepath.Join(g.dir, "workloads", "mget64.sql")
		if err := os.WriteFile(path, []byte("SELECT 42 AS edited;\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(filepath.Join(g.dir, "workloads"))
		out := g.ok("-n", "-r", "-f", "workloads/mget64.sql", "-t", "1", db)
		if !strings.Contains(out.stdout, "SELECT 42 AS edited;") {
			t.Errorf("the run did not read the file on disk:\n%s", out.stdout)
		}
	})

	t.Run("a second load says what it replaces", func(t *testing.T) {
		out := g.ok("workloads", "load", "--keyspace", "1000", "--resp", url, db)
		for _, want := range []string{
			"PostgreSQL: replacing the dataset (4096 items of 128 bytes, 100000 kv keys, loaded ", // the README's load
			"\n  table gbench.items (4098 rows)\n",
			"Redis: replacing the dataset (4096 items of 128 bytes, 100000 kv keys, 100000 sessions, 1000 YCSB records of 10 fields of 100 bytes, loaded ",
			"\n  4096 keys gbench:item:*\n",
		} {
			if !strings.Contains(out.stderr, want) {
				t.Errorf("no %q in\n%s", want, out.stderr)
			}
		}
	})

	t.Run("a schema gbench of the user's", func(t *testing.T) {
		sandboxSQL(t, db, "CREATE DATABASE theirs")
		theirs := strings.Replace(db, "dbname=gbench", "dbname=theirs", 1)
		sandboxSQL(t, theirs, "CREATE SCHEMA gbench; CREATE TABLE gbench.items (id int, name text NOT NULL)")
		out := g.run("workloads", "load", theirs)
		want := `gbench: error: workloads: PostgreSQL: schema "gbench" exists and gbench did not create it`
		if out.code != exitUsage || !strings.HasPrefix(out.stderr, "gbench workloads: loading") || !strings.Contains(out.stderr, want) || !strings.Contains(out.stderr, "nothing was changed") {
			t.Errorf("status %d, want 1 and %q in\n%s", out.code, want, out.stderr)
		}
		if got := sandboxSQL(t, theirs, "SELECT count(*) FROM pg_class WHERE relnamespace = 'gbench'::regnamespace"); string(got[0][0]) != "1" {
			t.Errorf("%s objects in their schema gbench, want their table alone", got[0][0])
		}
	})
}

// readmeCommands returns the gbench command lines of the README's examples,
// made short: -T 1, two clients, scale 1, the sandbox's servers for mydb and
// the Redis URL. The matrix and its report are left out: they take minutes
// and the matrix tests run them.
func readmeCommands(t *testing.T, db, url string) [][]string {
	t.Helper()
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	short := strings.NewReplacer("redis://127.0.0.1:6379/0", url, "-s 10", "-s 1",
		"-c 256", "-c 2", "-c 64", "-c 2", "-c 16", "-c 2")
	longT := regexp.MustCompile(`-T \d+`)
	var out [][]string
	for _, line := range strings.Split(strings.ReplaceAll(string(text), "\\\n", ""), "\n") {
		cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "gbench ")
		if !ok || !strings.HasPrefix(line, "    ") || strings.HasPrefix(cmd, "matrix") || strings.HasPrefix(cmd, "report") {
			continue
		}
		cmd, _, _ = strings.Cut(cmd, " #")
		cmd = longT.ReplaceAllString(short.Replace(cmd), "-T 1")
		args := strings.Fields(cmd)
		for i, a := range args {
			if a == "mydb" {
				args[i] = db
			}
		}
		out = append(out, args)
	}
	if len(out) < 8 {
		t.Fatalf("only %d gbench commands in the README: %q", len(out), out)
	}
	return out
}

// wantProcessed checks the summary's count of transactions.
func wantProcessed(t *testing.T, out outcome, n int) {
	t.Helper()
	if want := fmt.Sprintf("number of transactions actually processed: %d/%d\n", n, n); !strings.Contains(out.stdout, want) {
		t.Errorf("no %q in\n%s\n%s", want, out.stdout, out.stderr)
	}
}

// runLineArgs reads the "-- Run:" line of a bundled workload's header and
// makes it a short run against the sandbox: 2 clients, 5 transactions each,
// no progress reports, the sandbox's servers, the kv keys loaded.
func runLineArgs(t *testing.T, name, db, url string) []string {
	t.Helper()
	text, err := workloads.Text(name)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^-- Run: +gbench (.*)$`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s: no run line", name)
	}
	line := strings.NewReplacer(
		"-c 64", "-c 2", "-T 10", "-t 5", " -P 1", "", "-D keys=100000", "-D keys=1000",
		"redis://127.0.0.1:6379/0", url,
		// the tagged workloads name a cluster; their headers say one Redis runs them too,
		// and TestWorkloadsCluster runs them on a real cluster
		"redis+cluster://127.0.0.1:7000", url,
	).Replace(m[1])
	var args []string
	for _, a := range strings.Fields(line) {
		if a == "DBNAME" {
			a = db
		}
		args = append(args, a)
	}
	return args
}
