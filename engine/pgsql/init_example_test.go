package pgsql_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/gbench/gbench/engine/pgsql"
)

// Example of what pgbench -i -s 10 --foreign-keys does, the way the CLI
// calls Init: notices go to stderr as libpq prints them, and a failed
// statement is printed in pgbench's two lines.
func ExampleInit() {
	cfg, err := pgsql.ParseConfig("host=127.0.0.1 user=postgres dbname=test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	ctx := context.Background()
	conn, err := cfg.OpenNotices(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer conn.Close()
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
