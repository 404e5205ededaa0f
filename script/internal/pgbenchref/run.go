package pgbenchref

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// ScriptName is the file name scripts are written to before pgbench reads
// them, so pgbench's messages read "script.sql:LINE: ...".
const ScriptName = "script.sql"

// slots bounds the number of pgbench processes running at once.
var slots = make(chan struct{}, 2)

// runs counts pgbench processes started, for tests to report.
var runs atomic.Int64

// Sent is one SQL text pgbench sent to the server.
type Sent struct {
	Client int    // client id (0-based)
	Txn    int    // transaction number of that client (0-based)
	SQL    string // text after variable substitution; may span lines
}

// Outcome is what one pgbench run reported.
type Outcome struct {
	ExitCode int      // 0 ok, 1 rejected before running, 2 failure during the run
	Sent     []Sent   // SQL texts in the order pgbench logged them
	Debug    []string // lines printed by debug(), e.g. "debug(script=0,command=1): int 5"
	// Errors holds one entry per "pgbench: error: " line, without that
	// prefix, followed by its context lines (the echoed command and the
	// caret line, the server's LINE/caret lines, "detail: ..." and
	// "hint: ..." lines), joined with "\n".
	Errors []string
	Stdout string // pgbench's report
	Stderr string // the whole debug log
}

// FirstError returns the first line of the first error, or "" if pgbench
// reported no error.
func (o Outcome) FirstError() string {
	if len(o.Errors) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(o.Errors[0], "\n")
	return first
}

// SentBy returns the SQL texts sent by one client, in order.
func (o Outcome) SentBy(client int) []string {
	var out []string
	for _, s := range o.Sent {
		if s.Client == client {
			out = append(out, s.SQL)
		}
	}
	return out
}

// Run writes script to a temporary file named ScriptName and runs
//
//	pgbench -n -M simple -d [-t 1] [-c 1] ARGS... -f script.sql CONNINFO
//
// in that file's directory. -t 1 is added unless args hold -t or -T, -c 1
// unless they hold -c; a later -M in args overrides simple. The error is
// non-nil only when pgbench could not be run at all (or ctx ended); a
// script that pgbench rejects is reported in Outcome.ExitCode and Errors.
// Run is safe for concurrent use.
func Run(ctx context.Context, script string, args ...string) (Outcome, error) {
	dir, err := os.MkdirTemp("", "pgbenchref-")
	if err != nil {
		return Outcome{}, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, ScriptName), []byte(script), 0o644); err != nil {
		return Outcome{}, err
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return Outcome{}, ctx.Err()
	}
	defer func() { <-slots }()
	runs.Add(1)
	return runIn(ctx, dir, commandLine(args))
}

// commandLine builds pgbench's arguments for Run.
func commandLine(args []string) []string {
	line := []string{"-n", "-M", "simple", "-d"}
	if !hasOption(args, "-t", "--transactions", "-T", "--time") {
		line = append(line, "-t", "1")
	}
	if !hasOption(args, "-c", "--client") {
		line = append(line, "-c", "1")
	}
	line = append(line, args...)
	return append(line, "-f", ScriptName, Conninfo())
}

// hasOption reports whether args hold one of the options, in any of the
// forms "-t 5", "-t5", "--transactions 5" or "--transactions=5".
func hasOption(args []string, opts ...string) bool {
	for _, a := range args {
		for _, o := range opts {
			if a == o || strings.HasPrefix(a, o+"=") || (len(o) == 2 && strings.HasPrefix(a, o)) {
				return true
			}
		}
	}
	return false
}

func runIn(ctx context.Context, dir string, args []string) (Outcome, error) {
	cmd := exec.CommandContext(ctx, "pgbench", args...)
	cmd.Dir = dir
	// Untranslated messages, so that golden files match everywhere.
	cmd.Env = append(slices.Clone(os.Environ()), "LC_ALL=C", "LANG=C", "PGAPPNAME=pgbenchref")
	if os.Getenv("PGSSLMODE") == "" {
		// TLS handshakes only cost time here; a conninfo sslmode still wins.
		cmd.Env = append(cmd.Env, "PGSSLMODE=disable")
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return Outcome{}, ctx.Err()
	case errors.As(err, &exit):
		if exit.ExitCode() < 0 {
			return Outcome{}, fmt.Errorf("pgbench: %w", err)
		}
	case err != nil:
		return Outcome{}, fmt.Errorf("pgbench: %w", err)
	}
	out := parseLog(stderr.String())
	out.ExitCode = cmd.ProcessState.ExitCode()
	out.Stdout, out.Stderr = stdout.String(), stderr.String()
	return out, nil
}
