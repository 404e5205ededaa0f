// Package workloads holds gbench's bundled benchmark scripts, the dataset
// they read, and the check that the ways of reading it agree. Together they
// reproduce the "PostgreSQL as a cache vs Redis" benchmark, YCSB's
// workloads A-F on both protocols (ycsb-X.sql, resp-ycsb-X.sql, on the
// records gbench.usertable and gbench:ycsb:user<n>) and a TPC-C-like mix
// (tpcc-*.sql, its data from TPCCFile when Options.Warehouses is set);
// docs/workloads.md describes every workload.
//
// # Files
//
// The .sql files of this directory are embedded (Files, Text). Each starts
// with a header comment saying what it measures, how to run it and what it
// needs; Workloads lists them with the query mode and -D variables they
// need. dataset.sql is not a workload: it creates the tables and functions.
//
// # The dataset
//
// Load makes it exist in PostgreSQL and Redis, idempotently:
//
//	err := workloads.Load(ctx, pgConn, redisConn, workloads.Options{}) // 4096 items of 128 bytes
//
// Everything lives apart from the user's objects: in PostgreSQL in the
// schema gbench (Schema), in Redis under the prefix "gbench:" (KeyPrefix).
// gbench.items(id, v) holds Value(id, ValueSize) for ids 1..Items, and the
// Redis keys gbench:item:<id> the same values; ids -1 and -2 have NULL
// values (no Redis key) and id 0 exists nowhere, for the contract check
// only. gbench.items_cache and the gbench:cache:* keys start empty for the
// cold fills; gbench.kv and gbench:kv:* hold keys 1..Keys for the get/set
// comparison.
//
// Every PostgreSQL object of the dataset carries a comment starting with
// Marker, and the Redis hash MarkerKey marks a loaded database. Inspect
// reads them; Load and Drop refuse, changing nothing and wrapping
// ErrForeign, when the schema or the prefixes hold what gbench did not
// create, and LoadLog says what it replaces before it does.
//
// # Read paths and the contract
//
// Paths returns the three ways of reading: sql-any (prepared SELECT ...
// WHERE id = ANY($1)), sql-mget (SELECT mget($1), one JSON array in request
// order) and resp-mget (MGET). Path.Script writes the script of a read of n
// fixed or random keys, for a matrix runner; the bundled files hold the
// scripts for KeyCounts. Contract runs the same requests on the three
// paths, decodes each answer into []*string in request order and fails,
// naming the case and the path, when they differ:
//
//	if err := workloads.Contract(ctx, pgConn, redisConn); err != nil {
//		return err // e.g. `case "reversed" ...: sql-mget differs from sql-any at position 1 ...`
//	}
//
// Load, Contract and Drop take connections the caller opened (pgconn for
// PostgreSQL, resp.Dial for Redis, which selects the database) and keeps
// owning; a connection must not be used elsewhere during a call.
package workloads
