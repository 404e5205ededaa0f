package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/spf13/pflag"
)

// tableInfo reads the scale from pgbench_branches and the partitioning of
// pgbench_accounts, as pgbench does for its builtin scripts.
func (b *benchSetup) tableInfo(ctx context.Context, env *Env, conn *pgconn.PgConn) error {
	rows, err := conn.Exec(ctx, "select count(*) from pgbench_branches").ReadAll()
	if err != nil {
		msg := fmt.Sprintf("could not count number of branches: %s", pgErrorText(err))
		if pe, ok := err.(*pgconn.PgError); ok && pe.Code == "42P01" {
			msg += fmt.Sprintf("\ngbench: hint: Perhaps you need to do initialization (\"gbench -i\") in database \"%s\".", b.pg.Database())
		}
		return &usageError{msg: msg}
	}
	scale, _ := strconv.Atoi(string(rows[0].Rows[0][0]))
	if b.scaleGiven {
		fmt.Fprintf(env.Stderr, "gbench: warning: scale option ignored, using count from pgbench_branches table (%d)\n", scale)
	}
	b.cfg.Scale, b.summary.Scale = scale, scale
	res, err := conn.Exec(ctx, partitionQuery).ReadAll()
	if err != nil || len(res) == 0 || len(res[0].Rows) == 0 {
		return nil
	}
	row := res[0].Rows[0]
	switch string(row[1]) {
	case "r":
		b.summary.PartitionMethod = "range"
	case "h":
		b.summary.PartitionMethod = "hash"
	}
	b.summary.Partitions, _ = strconv.Atoi(string(row[2]))
	return nil
}

// partitionQuery is pgbench's: the partitioning of the first
// pgbench_accounts in the search path.
const partitionQuery = `select o.n, p.partstrat, pg_catalog.count(i.inhparent) ` +
	`from pg_catalog.pg_class as c ` +
	`join pg_catalog.pg_namespace as n on (n.oid = c.relnamespace) ` +
	`cross join lateral (select pg_catalog.array_position(pg_catalog.current_schemas(true), n.nspname)) as o(n) ` +
	`left join pg_catalog.pg_partitioned_table as p on (p.partrelid = c.oid) ` +
	`left join pg_catalog.pg_inherits as i on (c.oid = i.inhparent) ` +
	`where c.relname = 'pgbench_accounts' and o.n is not null ` +
	`group by 1, 2 order by 1 asc limit 1`

// vacuum runs pgbench's pre-run maintenance, reporting and ignoring errors.
func vacuum(ctx context.Context, env *Env, conn *pgconn.PgConn, all bool) {
	fmt.Fprint(env.Stderr, "starting vacuum...")
	for _, q := range []string{"vacuum pgbench_branches", "vacuum pgbench_tellers", "truncate pgbench_history"} {
		tryExec(ctx, env, conn, q)
	}
	fmt.Fprint(env.Stderr, "end.\n")
	if all {
		fmt.Fprint(env.Stderr, "starting vacuum pgbench_accounts...")
		tryExec(ctx, env, conn, "vacuum analyze pgbench_accounts")
		fmt.Fprint(env.Stderr, "end.\n")
	}
}

func tryExec(ctx context.Context, env *Env, conn *pgconn.PgConn, q string) {
	if _, err := conn.Exec(ctx, q).ReadAll(); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\ngbench: detail: (ignoring this error and continuing anyway)\n", pgErrorText(err))
	}
}

// pgErrorText formats a server error the way libpq prints it.
func pgErrorText(err error) string {
	if pe, ok := err.(*pgconn.PgError); ok {
		return fmt.Sprintf("%s:  %s", pe.Severity, pe.Message)
	}
	return redact(err.Error())
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
	conn, err := cfg.PgConnNotices(ctx, env.Stderr)
	if err != nil {
		fmt.Fprintf(env.Stderr, "gbench: error: %s\n", connError(err))
		return fail(env, usagef("could not create connection for initialization"))
	}
	defer conn.Close(context.Background())
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
