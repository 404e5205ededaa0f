package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/gbench/gbench/run/sandbox"
)

// abBuilds are the two PostgreSQL builds an A/B series compares, each in
// a throwaway server of its own.
type abBuilds struct {
	dirA, dirB string
	setup      string // SQL file run in each server first
	initScale  int    // gbench -i -s N in each server first; 0 for none
	// durabilityOff is --durability=off; durabilitySet says it was given.
	durabilityOff, durabilitySet bool
	sandboxes                    []*sandbox.Sandbox
}

// active reports whether builds were asked for.
func (b *abBuilds) active() bool { return b.dirA != "" || b.dirB != "" }

// check applies the rules between the build options and the command lines,
// which must not name a server: each side runs against its build's.
func (b *abBuilds) check(lines [][]string, env *Env) error {
	switch {
	case !b.active() && (b.setup != "" || b.initScale > 0):
		return usagef("--setup and --init-scale prepare the servers of --build-a and --build-b")
	case !b.active() && b.durabilitySet:
		return usagef("--durability sets the throwaway servers of --build-a and --build-b")
	case !b.active():
		return nil
	case b.dirA == "" || b.dirB == "":
		return usagef("--build-a and --build-b go together: give the bin directory of each PostgreSQL build")
	}
	for i, line := range lines {
		_, fs, rest, err := parseArgs(env, line)
		if err != nil {
			return err
		}
		if len(rest) > 0 || fs.Changed("host") || fs.Changed("port") || fs.Changed("dbname") || fs.Changed("username") {
			return usagef("command line %s names a server, but with --build-a and --build-b each side runs against a throwaway server of its build", "AB"[i:i+1])
		}
	}
	return nil
}

// start starts one server per build, prepares it, and returns the
// command lines pointed at them. stop removes the servers.
func (b *abBuilds) start(ctx context.Context, env *Env, lines [][]string, maxClients int) ([][]string, error) {
	out := make([][]string, len(lines))
	for i, dir := range []string{b.dirA, b.dirB} {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, usagef("--build-%s: %q is not a directory (give the bin directory of a PostgreSQL build, which holds initdb and postgres)", lower("AB"[i:i+1]), dir)
		}
		getenv := func(k string) string {
			if k == "PATH" {
				return dir + string(os.PathListSeparator) + env.Getenv("PATH")
			}
			return env.Getenv(k)
		}
		fmt.Fprintf(env.Stderr, "gbench ab: starting a throwaway server of build %s (%s)\n", "AB"[i:i+1], dir)
		// The servers outlive ctx: Ctrl-C ends the series, then them.
		sb, err := sandbox.Start(context.WithoutCancel(ctx), sandbox.Options{Postgres: true, MaxConnections: maxClients + sandboxMargin,
			SharedBuffers: sandbox.DefaultSharedBuffers, DurabilityOff: b.durabilityOff, Log: env.Stderr, Getenv: getenv})
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", "AB"[i:i+1], err)
		}
		b.sandboxes = append(b.sandboxes, sb)
		conninfo := sb.PostgresConnString()
		if err := b.prepare(ctx, env, conninfo); err != nil {
			return nil, fmt.Errorf("build %s: %w", "AB"[i:i+1], err)
		}
		out[i] = append(append([]string{}, lines[i]...), conninfo)
	}
	return out, nil
}

// prepare initializes a server: gbench -i, then the setup file.
func (b *abBuilds) prepare(ctx context.Context, env *Env, conninfo string) error {
	if b.initScale > 0 {
		quiet := &Env{Stdin: env.Stdin, Stdout: io.Discard, Stderr: io.Discard, Getenv: env.Getenv, Now: env.Now}
		if code := Run(quiet, []string{"-i", "-q", "-s", strconv.Itoa(b.initScale), conninfo}); code != exitOK {
			return fmt.Errorf("gbench -i -s %d failed with status %d", b.initScale, code)
		}
	}
	if b.setup == "" {
		return nil
	}
	sql, err := os.ReadFile(b.setup)
	if err != nil {
		return usagef("could not read file \"%s\": %v", b.setup, unwrapPathError(err))
	}
	o := &options{dbname: conninfo}
	pg, err := pgConfig(o)
	if err != nil {
		return err
	}
	conn, err := pg.Open(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.Exec(ctx, string(sql)); err != nil {
		return fmt.Errorf("%s: %s", b.setup, pg.ErrorText(err))
	}
	return nil
}

// stop removes the servers.
func (b *abBuilds) stop(env *Env) {
	for _, sb := range b.sandboxes {
		if err := sb.Close(); err != nil {
			fmt.Fprintf(env.Stderr, "gbench: error: %v\n", err)
		}
	}
}
