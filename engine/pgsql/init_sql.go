package pgsql

import (
	"fmt"
	"strings"
)

// The statements below are the ones pgbench 15 sends, byte for byte, so that
// server logs and error messages read the same. The one difference is in
// step 'g', which COPYs pgbench_branches and pgbench_tellers where pgbench 15
// sends one INSERT per row (see generateClientSide).

const (
	// initAccountsPerBranch, initTellersPerBranch: rows per unit of scale.
	initAccountsPerBranch = 100000
	initTellersPerBranch  = 10
	// initBigAidScale is the scale from which aid no longer fits in int.
	initBigAidScale = 20000
)

// initDropSQL drops all four tables in one statement, so foreign keys
// between them do not matter.
const initDropSQL = "drop table if exists " +
	"pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

// initTruncateSQL empties all four tables in one statement.
const initTruncateSQL = "truncate table " +
	"pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

// initTable is one table of step 't' in pgbench's order.
type initTable struct {
	name       string
	cols       string // aid as int
	bigCols    string // aid as bigint, from initBigAidScale on
	fillFactor bool   // takes "with (fillfactor=N)"
}

// initTables lists the tables in the order pgbench creates them.
var initTables = []initTable{
	{"pgbench_history",
		"tid int,bid int,aid    int,delta int,mtime timestamp,filler char(22)",
		"tid int,bid int,aid bigint,delta int,mtime timestamp,filler char(22)",
		false},
	{"pgbench_tellers",
		"tid int not null,bid int,tbalance int,filler char(84)",
		"tid int not null,bid int,tbalance int,filler char(84)",
		true},
	{"pgbench_accounts",
		"aid    int not null,bid int,abalance int,filler char(84)",
		"aid bigint not null,bid int,abalance int,filler char(84)",
		true},
	{"pgbench_branches",
		"bid int not null,bbalance int,filler char(88)",
		"bid int not null,bbalance int,filler char(88)",
		true},
}

// initCreateSQLs returns the four create table statements of step 't'.
func initCreateSQLs(o InitOptions) []string {
	sqls := make([]string, 0, len(initTables))
	for _, t := range initTables {
		sqls = append(sqls, initCreateSQL(o, t))
	}
	return sqls
}

// initCreateSQL builds one create table statement.
func initCreateSQL(o InitOptions, t initTable) string {
	cols := t.cols
	if o.Scale >= initBigAidScale {
		cols = t.bigCols
	}
	var b strings.Builder
	fmt.Fprintf(&b, "create%s table %s(%s)", initUnlogged(o), t.name, cols)
	switch {
	case o.Partitions > 0 && t.name == "pgbench_accounts":
		fmt.Fprintf(&b, " partition by %s (aid)", initPartitionMethod(o))
	case t.fillFactor:
		fmt.Fprintf(&b, " with (fillfactor=%d)", o.FillFactor)
	}
	if o.Tablespace != "" {
		b.WriteString(" tablespace " + initQuoteIdent(o.Tablespace))
	}
	return b.String()
}

// initUnlogged is the " unlogged" of "create unlogged table", or "".
func initUnlogged(o InitOptions) string {
	if o.Unlogged {
		return " unlogged"
	}
	return ""
}

// initPartitionMethod is "range" or "hash"; "" defaults to range as in pgbench.
func initPartitionMethod(o InitOptions) string {
	if o.PartitionMethod == "" {
		return "range"
	}
	return o.PartitionMethod
}

// initPartitionSQLs returns the create statements of the partitions of
// pgbench_accounts. Like pgbench, partitions get no tablespace clause.
func initPartitionSQLs(o InitOptions) []string {
	sqls := make([]string, 0, o.Partitions)
	for p := 1; p <= o.Partitions; p++ {
		sql := fmt.Sprintf("create%s table pgbench_accounts_%d\n  partition of pgbench_accounts\n  for values %s",
			initUnlogged(o), p, initPartitionBound(o, p))
		sqls = append(sqls, sql+fmt.Sprintf(" with (fillfactor=%d)", o.FillFactor))
	}
	return sqls
}

// initPartitionBound is the "for values" clause of partition p (1-based). Range
// partitions split the aids evenly, with open ends at minvalue and maxvalue
// so that any aid has a home.
func initPartitionBound(o InitOptions, p int) string {
	if initPartitionMethod(o) == "hash" {
		return fmt.Sprintf("with (modulus %d, remainder %d)", o.Partitions, p-1)
	}
	n := int64(o.Partitions)
	size := (initAccountRows(o.Scale) + n - 1) / n
	from, to := "minvalue", "maxvalue"
	if p > 1 {
		from = fmt.Sprint(int64(p-1)*size + 1)
	}
	if int64(p) < n {
		to = fmt.Sprint(int64(p)*size + 1)
	}
	return fmt.Sprintf("from (%s) to (%s)", from, to)
}

// initAccountRows is the number of rows of pgbench_accounts at a scale.
func initAccountRows(scale int) int64 {
	return int64(initAccountsPerBranch) * int64(scale)
}

// initServerSideSQLs are the inserts of step 'G', run after the truncate.
func initServerSideSQLs(scale int) []string {
	return []string{
		fmt.Sprintf("insert into pgbench_branches(bid,bbalance) "+
			"select bid, 0 from generate_series(1, %d) as bid", scale),
		fmt.Sprintf("insert into pgbench_tellers(tid,bid,tbalance) "+
			"select tid, (tid - 1) / %d + 1, 0 from generate_series(1, %d) as tid",
			initTellersPerBranch, initTellersPerBranch*scale),
		fmt.Sprintf("insert into pgbench_accounts(aid,bid,abalance,filler) "+
			"select aid, (aid - 1) / %d + 1, 0, '' from generate_series(1, %d) as aid",
			initAccountsPerBranch, initAccountRows(scale)),
	}
}

// initVacuumSQLs are the statements of step 'v'.
var initVacuumSQLs = []string{
	"vacuum analyze pgbench_branches",
	"vacuum analyze pgbench_tellers",
	"vacuum analyze pgbench_accounts",
	"vacuum analyze pgbench_history",
}

// initPrimaryKeySQLs are the statements of step 'p'; indexTablespace may be "".
func initPrimaryKeySQLs(indexTablespace string) []string {
	sqls := []string{
		"alter table pgbench_branches add primary key (bid)",
		"alter table pgbench_tellers add primary key (tid)",
		"alter table pgbench_accounts add primary key (aid)",
	}
	if indexTablespace != "" {
		for i := range sqls {
			sqls[i] += " using index tablespace " + initQuoteIdent(indexTablespace)
		}
	}
	return sqls
}

// initForeignKeySQLs are the statements of step 'f'.
var initForeignKeySQLs = []string{
	"alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) references pgbench_branches",
	"alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) references pgbench_tellers",
	"alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) references pgbench_accounts",
}

// initCopySQL is the COPY statement that loads table. freeze asks for rows
// written frozen, which needs PostgreSQL 14 and an unpartitioned table that
// was truncated in the same transaction.
func initCopySQL(table string, freeze bool) string {
	if freeze {
		return "copy " + table + " from stdin with (freeze on)"
	}
	return "copy " + table + " from stdin"
}

// initQuoteIdent quotes an SQL identifier as libpq's PQescapeIdentifier does:
// always in double quotes, with embedded double quotes doubled.
func initQuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
