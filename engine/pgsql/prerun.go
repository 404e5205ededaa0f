package pgsql

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// What pgbench does on its own connection before a run: read the scale
// and the partitioning of pgbench's tables for the builtin scripts, and
// vacuum them unless -n.

// TableInfo is what pgbench reads of its tables before running a builtin
// script.
type TableInfo struct {
	// Scale is the number of rows of pgbench_branches.
	Scale int
	// PartitionMethod is "range" or "hash" when pgbench_accounts is
	// partitioned, "" otherwise; Partitions is then its partition count.
	PartitionMethod string
	Partitions      int
}

// ErrNoTables is returned (wrapped, with the server's error) by
// ReadTableInfo when pgbench_branches does not exist: the database needs
// initialization (-i).
var ErrNoTables = errors.New("pgbench_branches does not exist")

// ReadTableInfo reads the scale and the partitioning as pgbench does, with
// the same statements. An error is the server's for counting the branches
// (wrapping ErrNoTables when the table does not exist); the partitioning
// is left empty when it cannot be read, as pgbench leaves it.
func ReadTableInfo(ctx context.Context, c *Client) (TableInfo, error) {
	const count = "select count(*) from pgbench_branches"
	rows, err := c.SimpleQuery(ctx, count)
	if err != nil {
		se, ok := AsServerError(err)
		err = withQuery(err, count)
		if ok && se.Code == "42P01" {
			return TableInfo{}, errors.Join(err, ErrNoTables)
		}
		return TableInfo{}, err
	}
	var info TableInfo
	if len(rows) == 1 && len(rows[0]) == 1 {
		info.Scale, _ = strconv.Atoi(string(rows[0][0]))
	}
	rows, err = c.SimpleQuery(ctx, partitionQuery)
	if err != nil || len(rows) == 0 || len(rows[0]) < 3 {
		return info, nil
	}
	switch string(rows[0][1]) {
	case "r":
		info.PartitionMethod = "range"
	case "h":
		info.PartitionMethod = "hash"
	}
	info.Partitions, _ = strconv.Atoi(string(rows[0][2]))
	return info, nil
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

// Vacuum runs pgbench's pre-run maintenance, writing pgbench's progress
// words to log ("starting vacuum...end."): vacuum of the branches and
// tellers and truncation of the history, then, when all (-v), vacuum
// analyze of the accounts. A statement that fails is passed to failed and
// the rest still run, as pgbench reports and ignores such errors.
func Vacuum(ctx context.Context, c *Client, all bool, log io.Writer, failed func(error)) {
	run := func(q string) {
		if err := c.Exec(ctx, q); err != nil {
			failed(err)
		}
	}
	io.WriteString(log, "starting vacuum...")
	for _, q := range []string{"vacuum pgbench_branches", "vacuum pgbench_tellers", "truncate pgbench_history"} {
		run(q)
	}
	io.WriteString(log, "end.\n")
	if all {
		io.WriteString(log, "starting vacuum pgbench_accounts...")
		run("vacuum analyze pgbench_accounts")
		io.WriteString(log, "end.\n")
	}
}

// withQuery turns a server error for query into an *Error, whose text has
// libpq's "LINE n:" and caret lines under the error's position.
func withQuery(err error, query string) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	return &Error{Severity: pe.Severity, Code: pe.Code, Message: pe.Message, Detail: pe.Detail, Hint: pe.Hint,
		Position: int(pe.Position), InternalQuery: pe.InternalQuery, InternalPosition: int(pe.InternalPosition),
		Where: pe.Where, Query: query}
}
