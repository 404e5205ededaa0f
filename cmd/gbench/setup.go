package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/spf13/pflag"
)

// tableInfo reads the scale from pgbench_branches and the partitioning of
// pgbench_accounts, as pgbench does for its builtin scripts.
func (b *benchSetup) tableInfo(ctx context.Context, env *Env, conn *pgsql.Client) error {
	info, err := pgsql.ReadTableInfo(ctx, conn)
	if err != nil {
		msg := fmt.Sprintf("could not count number of branches: %s", b.pg.ErrorText(err))
		if errors.Is(err, pgsql.ErrNoTables) {
			msg += fmt.Sprintf("\ngbench: hint: Perhaps you need to do initialization (\"gbench -i\") in database \"%s\".", b.database())
		}
		return &usageError{msg: msg}
	}
	if b.scaleGiven {
		fmt.Fprintf(env.Stderr, "gbench: warning: scale option ignored, using count from pgbench_branches table (%d)\n", info.Scale)
	}
	b.cfg.Scale, b.summary.Scale = info.Scale, info.Scale
	b.summary.PartitionMethod, b.summary.Partitions = info.PartitionMethod, info.Partitions
	return nil
}

// vacuum runs pgbench's pre-run maintenance, reporting and ignoring errors.
func (b *benchSetup) vacuum(ctx context.Context, env *Env, conn *pgsql.Client, all bool) {
	pgsql.Vacuum(ctx, conn, all, env.Stderr, func(err error) {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\ngbench: detail: (ignoring this error and continuing anyway)\n", b.pg.ErrorText(err))
	})
}

// runInit is -i: pgbench's initialization.
func runInit(env *Env, o *options, fs *pflag.FlagSet) int {
	if o.partitions == 0 && o.partitionMethod != "" {
		return fail(env, usagef("--partition-method requires greater than zero --partitions"))
	}
	steps := o.initSteps
	if steps == "" {
		steps = "dtgvp"
	}
	if o.noVacuum {
		steps = strings.ReplaceAll(steps, "v", " ")
	}
	if o.foreignKeys && !strings.Contains(steps, "f") {
		steps += "f"
	}
	method := o.partitionMethod
	if o.partitions > 0 && method == "" {
		method = "range"
	}
	cfg, err := pgConfig(o)
	if err != nil {
		return fail(env, err)
	}
	ctx, _, stop := signalContext(env)
	defer stop()
	conn, err := cfg.OpenNotices(ctx, env.Stderr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\n", connError(cfg, err))
		return fail(env, usagef("could not create connection for initialization"))
	}
	defer conn.Close()
	err = pgsql.Init(ctx, conn, pgsql.InitOptions{
		Steps: steps, Scale: max(o.scale, 1), FillFactor: o.fillFactor, Quiet: o.quiet,
		Unlogged: o.unlogged, Partitions: o.partitions, PartitionMethod: method,
		Tablespace: o.tablespace, IndexTablespace: o.indexTablespace,
	}, env.Stderr, isTerminal(env))
	if err != nil {
		return fail(env, err)
	}
	return exitOK
}

// isTerminal reports whether stderr is a terminal (progress lines then
// overwrite each other).
func isTerminal(env *Env) bool {
	f, ok := env.Stderr.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// database is the database the run connects to: as libpq, the user name
// when the connection string names none.
func (b *benchSetup) database() string {
	if db := b.pg.Database(); db != "" {
		return db
	}
	return b.pg.User()
}
