package pgsql_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/jackc/pgx/v5/pgconn"
)

// Example of what pgbench -i -s 10 --foreign-keys does, the way the CLI
// calls Init: notices go to stderr through NoticeWriter, and a failed
// statement is printed in pgbench's two lines.
func ExampleInit() {
	cfg, err := pgconn.ParseConfig("host=127.0.0.1 user=postgres dbname=test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	cfg.OnNotice = pgsql.NoticeWriter(os.Stderr)
	ctx := context.Background()
	conn, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer conn.Close(ctx)
	o := pgsql.InitOptions{Steps: pgsql.DefaultInitSteps + "f", Scale: 10, FillFactor: 100}
	err = pgsql.Init(ctx, conn, o, os.Stderr, false)
	var ie *pgsql.InitError
	switch {
	case errors.As(err, &ie):
		fmt.Fprintf(os.Stderr, "pgbench: error: query failed: %s\npgbench: detail: Query was: %s\n", ie.Message(), ie.SQL)
	case err != nil:
		fmt.Fprintf(os.Stderr, "pgbench: error: %v\n", err)
	}
}

// A server notice printed as libpq prints it.
func ExampleNoticeWriter() {
	notice := pgsql.NoticeWriter(os.Stdout)
	notice(nil, &pgconn.Notice{Severity: "NOTICE", Message: `table "pgbench_accounts" does not exist, skipping`})
	// Output: NOTICE:  table "pgbench_accounts" does not exist, skipping
}
