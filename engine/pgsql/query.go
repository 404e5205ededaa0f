package pgsql

import (
	"context"

	"github.com/jackc/pgx/v5/pgconn"
)

// QueryText runs sql with text parameters and returns the rows as text,
// NULL as "". It is for setup and probes, not for the benchmark's hot path.
func QueryText(ctx context.Context, conn *pgconn.PgConn, sql string, params ...string) ([][]string, error) {
	values := make([][]byte, len(params))
	for i, p := range params {
		values[i] = []byte(p)
	}
	res := conn.ExecParams(ctx, sql, values, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	rows := make([][]string, len(res.Rows))
	for i, r := range res.Rows {
		for _, v := range r {
			rows[i] = append(rows[i], string(v))
		}
	}
	return rows, nil
}
